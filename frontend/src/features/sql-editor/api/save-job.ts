import { apiPost, apiRequest } from "@/lib/api-client";
import type { JobInput, SqlJob } from "@/features/sql-editor/types";

/** Create the job, or update it when it already exists (the editor keeps its id). */
export async function saveJob(team: string, jobId: number | null, input: JobInput): Promise<SqlJob> {
  const base = `teams/${encodeURIComponent(team)}/jobs/`;
  if (jobId === null) return apiPost<SqlJob>(base, input);
  return (await apiRequest<SqlJob>(`${base}${jobId}/`, { method: "PATCH", body: input })).data;
}
