// Shapes of jobs/ and schedules/ as the OpenAPI schema declares them (lib/api-schema.d.ts is generated:
// `make client`).
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type ParameterDeclaration = Schemas["ParameterDeclarationOutput"];

/** A batch job runs to completion per run; a streaming job is one long-running query the platform supervises. */
export type JobKind = Schemas["KindEnum"];

export type Job = Schemas["JobOutput"];
export type JobList = Schemas["PaginatedJobOutputList"];
export type JobDataset = Schemas["JobEdgeDatasetOutput"];
export type JobCreateInput = Pick<Schemas["JobInputRequest"], "name" | "kind" | "sql" | "default_catalog">;

export type ScheduleFire = Schemas["FireOutput"];
export type Schedule = Schemas["ScheduleOutput"];
export type ScheduleList = Schemas["PaginatedScheduleOutputList"];
export type ScheduleInput = Schemas["ScheduleInputRequest"];
export type SchedulePreview = Schemas["PreviewOutput"];
export type SubmittedJobRun = Schemas["RunOutput"];
