// Shapes of sql/validate/, sql/preview/, jobs/ and jobs/{id}/runs/ as the OpenAPI schema declares them
// (lib/api-schema.d.ts is generated: `make client`).
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type SqlError = Schemas["SqlErrorOutput"];
/** Where sql/validate/ found a statement: [start, end) in string units (no `;`), its 1-based first line. */
export type StatementSpan = Schemas["StatementSpanOutput"];
export type ValidationResult = Schemas["ValidationOutput"];

export type PreviewResult = Schemas["SqlPreviewOutput"];

export type SqlJob = Schemas["JobOutput"];
export type JobInput = Pick<Schemas["JobInputRequest"], "name" | "sql" | "default_catalog" | "spark_conf">;
export type SubmittedRun = Schemas["RunOutput"];

/** `sql/preview/live/` and `sql/preview/live/{id}/`: a short streaming query over the sources (never the sink). */
export type LivePreview = Schemas["LivePreview"];
