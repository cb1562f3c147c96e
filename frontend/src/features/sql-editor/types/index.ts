// Shapes of sql/validate/, sql/preview/, jobs/ and jobs/{id}/runs/ (see jobs/apis.py).

export type SqlError = { statement?: number | null; line?: number | null; column?: number | null; message: string };
export type ValidationResult = { valid: boolean; errors: SqlError[]; schema?: unknown[] };
export type PreviewResult = { columns: { name: string; type?: string }[]; rows: unknown[][]; truncated?: boolean };

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
