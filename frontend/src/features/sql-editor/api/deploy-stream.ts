import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import { invalidateJobs } from "@/lib/queries/jobs";
import { saveJob } from "@/features/sql-editor/api/save-job";
import type { JobInput, SqlJob } from "@/features/sql-editor/types";

/** Create a streaming job from the editor's script; the server refuses a script that is not a streaming one. */
export function createStreamingJob(team: string, input: JobInput): Promise<SqlJob> {
  return apiPost<SqlJob>(`teams/${encodeURIComponent(team)}/jobs/`, { ...input, kind: "streaming" });
}

/**
 * "Deploy": save the script as a streaming job (patched when the editor already holds a streaming job, created
 * otherwise); starting it is left to the job page, where the stream is operated.
 */
export function useDeployStream(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ streamingJobId, input }: { streamingJobId: number | null; input: JobInput }): Promise<SqlJob> =>
      streamingJobId === null ? createStreamingJob(team, input) : saveJob(team, streamingJobId, input),
    onSuccess: () => invalidateJobs(qc, team),
  });
}
