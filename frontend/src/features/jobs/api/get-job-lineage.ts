import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";

export type JobDataset = { id: number; name: string; last_run: number | null; last_status: string };
export type JobLineageData = { job: { id: number; name: string }; inputs: JobDataset[]; outputs: JobDataset[] };

/** The tables a job reads and writes, as of its latest runs (lineage API). */
export function useJobLineage(team: string, jobId: string) {
  return useQuery({
    queryKey: ["lineage", team, "job", jobId],
    queryFn: () => apiGet<JobLineageData>(`teams/${encodeURIComponent(team)}/lineage/jobs/${encodeURIComponent(jobId)}/`),
  });
}
