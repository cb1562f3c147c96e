import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import { invalidateJobs } from "@/lib/queries/jobs";
import type { Job, JobCreateInput } from "@/features/jobs/types";

export function createJob(team: string, input: JobCreateInput): Promise<Job> {
  return apiPost<Job>(`teams/${encodeURIComponent(team)}/jobs/`, input);
}

/** Create a job (batch or streaming); the list is re-read afterwards. */
export function useCreateJob(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: JobCreateInput) => createJob(team, input),
    onSuccess: () => invalidateJobs(qc, team),
  });
}
