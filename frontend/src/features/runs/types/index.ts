// Shapes of runs/, runs/{id}/, runs/{id}/log/, runs/{id}/result/ and runs/{id}/cancel/ as the OpenAPI schema
// declares them (lib/api-schema.d.ts is generated: `make client`).
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type RunStatus = "QUEUED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELLED";
export const TERMINAL: RunStatus[] = ["SUCCEEDED", "FAILED", "CANCELLED"];

export type RunProgress = Schemas["RunOutput"]["progress"];
export type RunError = Schemas["RunErrorOutput"];

/** One statement of a run; `start`/`end` are null for runs recorded before API 1.2.0 (whose `line` is then not trusted). */
export type RunStatement = Schemas["RunStatementOutput"];
export type Run = Schemas["RunOutput"];
export type RunSummary = Schemas["RunSummaryOutput"];
export type RunList = Schemas["PaginatedRunSummaryOutputList"];

export type LogLine = Schemas["RunLogLineOutput"];
export type RunLog = Schemas["RunLogOutput"];
export type RunResult = Schemas["RunResultOutput"];
export type RunDataset = Schemas["RunEdgeDatasetOutput"];

export const isTerminal = (s: string | undefined) => !!s && (TERMINAL as string[]).includes(s);
