// Shapes of lineage/ as the OpenAPI schema declares them (lib/api-schema.d.ts is generated: `make client`).
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type Dataset = Schemas["DatasetOutput"];
/** A dataset of a graph walk; `depth` is its job hops from the start. */
export type LineageDataset = Schemas["ReachedDatasetOutput"];
export type LineageJob = Schemas["LineageJobOutput"];
export type LineageEdge = Schemas["LineageEdgeOutput"];
export type LineageGraph = Schemas["GraphOutput"];
export type DatasetDetail = Schemas["DatasetDetailOutput"];
export type ColumnStep = Schemas["ColumnStepOutput"];
export type ColumnLineage = Schemas["ColumnLineageOutput"];
