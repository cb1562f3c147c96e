import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";

/** The job's current script: the run page uses it to place an error's script-absolute line in its statement. */
export async function getJobSql(team: string, jobId: number): Promise<string> {
  return (await apiGet<{ sql: string }>(`teams/${encodeURIComponent(team)}/jobs/${jobId}/`)).sql ?? "";
}

export function useJobSql(team: string, jobId: number | undefined, enabled: boolean) {
  return useQuery({
    queryKey: ["jobs", team, "sql", jobId],
    queryFn: () => getJobSql(team, jobId!),
    enabled: enabled && jobId !== undefined,
    staleTime: 60_000,
  });
}
