// Shapes of alert-channels/ and alert-rules/ (docs/alerts.md). Written by hand until the next API release
// regenerates lib/api-schema.d.ts (`make client`).

export type ChannelKind = "webhook" | "slack" | "email";
export const CHANNEL_KINDS: { value: ChannelKind; label: string }[] = [
  { value: "webhook", label: "Webhook (signed JSON)" },
  { value: "slack", label: "Slack-compatible webhook" },
  { value: "email", label: "E-mail" },
];

export type Delivery = {
  id: number;
  kind: string;
  status: "pending" | "sending" | "sent" | "failed";
  title: string;
  attempts: number;
  last_error: string;
  created_at: string;
  sent_at: string | null;
};

export type Channel = {
  id: number;
  name: string;
  kind: ChannelKind;
  url: string | null;
  recipients: string[];
  secret_set: boolean;
  enabled: boolean;
  last_error: string;
  last_error_at: string | null;
  last_sent_at: string | null;
  recent_deliveries: Delivery[];
  created_at: string;
  updated_at: string;
};

export type ChannelInput = { name: string; kind: ChannelKind; url?: string; secret?: string; recipients?: string[] };

export type AlertEvent = "run_failed" | "stream_failed" | "schedule_run_failed" | "schedule_tick_skipped" | "run_long" | "stream_restarting" | "stream_falling_behind";
export const EVENTS: { value: AlertEvent; label: string; needs: ("minutes" | "count")[] }[] = [
  { value: "run_failed", label: "A run FAILED (after its retries)", needs: [] },
  { value: "schedule_run_failed", label: "A schedule tick failed", needs: [] },
  { value: "schedule_tick_skipped", label: "A schedule tick was skipped, missed or not submitted", needs: [] },
  { value: "stream_failed", label: "A stream FAILED", needs: [] },
  { value: "run_long", label: "A run runs longer than N minutes", needs: ["minutes"] },
  { value: "stream_restarting", label: "A stream restarts more than N times in M minutes", needs: ["count", "minutes"] },
  { value: "stream_falling_behind", label: "A stream falls behind its source for N minutes", needs: ["minutes"] },
];

export type Rule = {
  id: number;
  name: string;
  event: AlertEvent;
  job: number | null;
  job_name: string | null;
  channels: number[];
  minutes: number | null;
  count: number | null;
  enabled: boolean;
  created_at: string;
  updated_at: string;
};

export type RuleInput = { name: string; event: AlertEvent; job: number | null; channels: number[]; minutes?: number | null; count?: number | null };

export type Page<T> = { count: number; next: string | null; previous: string | null; results: T[] };

export type TestResult = { ok: boolean; error: string; delivery: number };
