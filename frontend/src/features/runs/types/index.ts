// Shapes of runs/, runs/{id}/, runs/{id}/log/, runs/{id}/result/ and runs/{id}/cancel/ (see jobs/apis.py).

export type RunStatus = "QUEUED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELLED";
export const TERMINAL: RunStatus[] = ["SUCCEEDED", "FAILED", "CANCELLED"];

export type RunProgress = {
  statements_done?: number;
  statements_total?: number;
  stages_done?: number;
  stages_total?: number;
  tasks_done?: number;
  tasks_total?: number;
};

export type RunError = { statement?: number | null; line?: number | null; column?: number | null; message: string; error_class?: string };

export type RunStatement = {
  index?: number;
  line?: number | null;
  column?: number | null;
  sql?: string;
  text?: string;
  status?: string;
  started_at?: string | null;
  finished_at?: string | null;
  elapsed_ms?: number | null;
  rows?: number | null;
  error?: string | RunError | null;
};

export type Run = {
  id: number;
  job?: number | { id: number; name: string } | null;
  job_id?: number;
  job_name?: string;
  status: RunStatus;
  sql?: string;
  default_catalog?: string;
  engine?: string;
  engine_used?: string;
  progress?: RunProgress;
  statements?: RunStatement[];
  error?: RunError | null;
  submitted_by?: string | null;
  created_at?: string;
  started_at?: string | null;
  finished_at?: string | null;
  duration_ms?: number | null;
  cancel_requested?: boolean;
  has_result?: boolean;
  catalogs?: string[];
  /** Parameter values the run used (`${name}` in the job's SQL), rendered as SQL literals. */
  parameters?: Record<string, { type: string; value: string }>;
  spark_ui_url?: string | null;
  attempt?: number;
};

export type LogLine = { seq?: number; ts?: string; level?: string; message: string };
export type LogChunk = { lines: LogLine[]; next_offset: number };
export type RunResult = { columns: { name: string; type?: string }[]; rows: unknown[][]; truncated?: boolean };

export const isTerminal = (s: string | undefined) => !!s && (TERMINAL as string[]).includes(s);

export function jobLabel(r: Run): string {
  if (r.job_name) return r.job_name;
  if (r.job && typeof r.job === "object") return r.job.name;
  return r.job !== undefined && r.job !== null ? `job ${r.job}` : "—";
}
