import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { JobList } from "@/features/jobs/types";

export function getJobs(team: string): Promise<JobList> {
  return apiGet<JobList>(`teams/${encodeURIComponent(team)}/jobs/`, { page_size: 200 });
}

export function useJobs(team: string) {
  return useQuery({ queryKey: ["jobs", team, "list"], queryFn: () => getJobs(team) });
}
