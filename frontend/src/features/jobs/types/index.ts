export type ParameterDeclaration = { type: string; default: string | null };

/** A batch job runs to completion per run; a streaming job is one long-running query the platform supervises. */
export type JobKind = "batch" | "streaming";

export type Job = {
  id: number;
  name: string;
  /** Absent from servers older than streaming jobs: read as "batch". */
  kind?: JobKind;
  sql: string;
  default_catalog: string;
  engine: string;
  parameters: Record<string, ParameterDeclaration>;
  created_by: string | null;
  updated_at: string;
};

export type ScheduleFire = {
  fire_time: string;
  status: "submitted" | "waiting" | "skipped" | "failed";
  run: number | null;
  run_status: string | null;
  attempts: number;
  message: string;
};

export type Schedule = {
  id: number;
  name: string;
  job: number;
  job_name: string;
  cron: string;
  time_zone: string;
  enabled: boolean;
  catchup: "skip" | "latest";
  concurrency: "skip" | "queue";
  max_retries: number;
  retry_backoff_seconds: number;
  parameters: Record<string, unknown>;
  next_fire_at: string | null;
  next_fire_times: string[];
  last_fire_at: string | null;
  recent_fires: ScheduleFire[];
};

export type ScheduleInput = Pick<
  Schedule,
  "name" | "cron" | "time_zone" | "catchup" | "concurrency" | "max_retries" | "retry_backoff_seconds" | "parameters"
> & { job: number };

export type SchedulePreview = {
  cron: string;
  time_zone: string;
  valid: boolean;
  next_fire_times: string[];
  error: { field: string; message: string } | null;
};

export type JobCreateInput = { name: string; kind: JobKind; sql: string; default_catalog: string };
