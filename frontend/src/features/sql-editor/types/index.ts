// Shapes of sql/validate/, sql/preview/, jobs/ and jobs/{id}/runs/ (see jobs/apis.py).

export type SqlError = { statement?: number | null; line?: number | null; column?: number | null; message: string };
export type ValidationResult = { valid: boolean; errors: SqlError[]; schema?: unknown[] };
export type PreviewResult = { columns: { name: string; type?: string }[]; rows: unknown[][]; truncated?: boolean; streaming?: boolean };

export type SqlJob = {
  id: number;
  name: string;
  sql: string;
  spark_conf?: Record<string, string>;
  default_catalog?: string;
  engine?: string;
};
export type JobInput = { name: string; sql: string; default_catalog: string; spark_conf?: Record<string, string> };
export type SubmittedRun = { id: number; status: string };

/** `sql/preview/live/` and `sql/preview/live/{id}/`: a short streaming query over the sources (never the sink). */
export type LivePreview = {
  id: string;
  status: "STARTING" | "RUNNING" | "STOPPED" | "FAILED";
  columns: { name: string; type?: string }[];
  rows: unknown[][];
  stopped: "seconds" | "rows" | "cancelled" | "failed" | null;
  error: SqlError | null;
  seconds: number;
  max_rows: number;
};
