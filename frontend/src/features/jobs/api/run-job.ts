import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import { invalidateRuns } from "@/lib/queries/runs";
import type { SubmittedJobRun } from "@/features/jobs/types";

/** Submit a run of a saved job with parameter values over its defaults (the server checks and types them). */
export function runJob(team: string, jobId: number, parameters: Record<string, string>): Promise<SubmittedJobRun> {
  return apiPost<SubmittedJobRun>(`teams/${encodeURIComponent(team)}/jobs/${jobId}/runs/`, { parameters });
}

export function useRunJob(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ jobId, parameters }: { jobId: number; parameters: Record<string, string> }) =>
      runJob(team, jobId, parameters),
    onSuccess: () => invalidateRuns(qc, team),
  });
}
