import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import { invalidateJobs } from "@/lib/queries/jobs";
import { invalidateRuns } from "@/lib/queries/runs";
import { saveJob } from "@/features/sql-editor/api/save-job";
import type { JobInput, SqlJob, SubmittedRun } from "@/features/sql-editor/types";

export function submitRun(team: string, jobId: number): Promise<SubmittedRun> {
  return apiPost<SubmittedRun>(`teams/${encodeURIComponent(team)}/jobs/${jobId}/runs/`, {});
}

/** "Run": save the script as a job, then submit a run of it. */
export function useSaveAndRun(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async ({ jobId, input }: { jobId: number | null; input: JobInput }): Promise<{ job: SqlJob; run: SubmittedRun }> => {
      const job = await saveJob(team, jobId, input);
      const run = await submitRun(team, job.id);
      return { job, run };
    },
    onSuccess: () => {
      invalidateJobs(qc, team);
      invalidateRuns(qc, team);
    },
  });
}
