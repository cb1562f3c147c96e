import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { JobLineageData } from "@/features/jobs/types";

/** The tables a job reads and writes, as of its latest runs (lineage API). */
export function useJobLineage(team: string, jobId: string) {
  return useQuery({
    queryKey: ["lineage", team, "job", jobId],
    queryFn: () => apiGet<JobLineageData>(`teams/${encodeURIComponent(team)}/lineage/jobs/${encodeURIComponent(jobId)}/`),
  });
}
