// Shapes of jobs/{id}/stream/… (docs: /work/coord contract of issue 15; the repo has no OpenAPI → TS generator,
// so these are written by hand beside the requests that use them).

export type StreamStatus = "STOPPED" | "STARTING" | "RUNNING" | "RESTARTING" | "STOPPING" | "FAILED";

/** One micro-batch as the runner reported it. */
export type StreamMetric = {
  batch_id: number;
  ts: string;
  input_rows: number;
  input_rows_per_second: number | null;
  processed_rows_per_second: number | null;
  output_rows: number;
  output_rows_per_second: number | null;
  duration_ms: number | null;
  watermark: string | null;
  state_rows: number | null;
  state_memory_bytes: number | null;
  /** Records the sources hold beyond what the query has read (summed over sources); null when unknown. */
  lag: number | null;
};

export type StreamState = {
  status: StreamStatus;
  desired: "running" | "stopped";
  restarts: number;
  last_error: string | null;
  query_id: string | null;
  started_at: string | null;
  heartbeat_at: string | null;
  checkpoint_generation: number;
  latest: StreamMetric | null;
  falling_behind: boolean;
};

export type StreamMetrics = { results: StreamMetric[] };

export type StreamAction = "start" | "stop" | "restart" | "reset";
