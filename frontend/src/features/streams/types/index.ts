// Shapes of jobs/{id}/stream/… as the OpenAPI schema declares them (lib/api-schema.d.ts is generated:
// `make client`).
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type StreamStatus = Schemas["StreamStateOutputStatusEnum"];

/** One micro-batch as the runner reported it. */
export type StreamMetric = Schemas["StreamMetricOutput"];
export type StreamState = Schemas["StreamStateOutput"];
export type StreamMetrics = Schemas["StreamMetricsOutput"];

export type StreamAction = "start" | "stop" | "restart" | "reset";

/** Who did what to the stream, and when (`GET stream/audit/`, newest first). */
export type StreamAuditEntry = Schemas["StreamAuditOutput"];
export type StreamAuditPage = Schemas["PaginatedStreamAuditOutputList"];
