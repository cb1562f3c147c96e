// Shapes of alert-channels/ and alert-rules/ (docs/alerts.md) as the OpenAPI schema declares them
// (lib/api-schema.d.ts is generated: `make client`).
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type ChannelKind = Schemas["AlertChannelKindEnum"];
export const CHANNEL_KINDS: { value: ChannelKind; label: string }[] = [
  { value: "webhook", label: "Webhook (signed JSON)" },
  { value: "slack", label: "Slack-compatible webhook" },
  { value: "email", label: "E-mail" },
];

export type Delivery = Schemas["DeliveryOutput"];
export type Channel = Schemas["ChannelOutput"];
export type ChannelInput = Schemas["ChannelInputRequest"];

export type AlertEvent = Schemas["AlertEventEnum"];
export const EVENTS: { value: AlertEvent; label: string; needs: ("minutes" | "count")[] }[] = [
  { value: "run_failed", label: "A run FAILED (after its retries)", needs: [] },
  { value: "schedule_run_failed", label: "A schedule tick failed", needs: [] },
  { value: "schedule_tick_skipped", label: "A schedule tick was skipped, missed or not submitted", needs: [] },
  { value: "stream_failed", label: "A stream FAILED", needs: [] },
  { value: "run_long", label: "A run runs longer than N minutes", needs: ["minutes"] },
  { value: "stream_restarting", label: "A stream restarts more than N times in M minutes", needs: ["count", "minutes"] },
  { value: "stream_falling_behind", label: "A stream falls behind its source for N minutes", needs: ["minutes"] },
];

export type Rule = Schemas["RuleOutput"];
export type RuleInput = Schemas["RuleInputRequest"];

export type Page<T> = { count: number; next: string | null; previous: string | null; results: T[] };

export type TestResult = Schemas["TestOutput"];
