// Shapes of the metadata endpoints under /api/v1/teams/{team}/catalogs/{name}/databases/…, as the OpenAPI
// schema declares them (lib/api-schema.d.ts is generated: `make client`).
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type CatalogRef = Pick<Schemas["CatalogOutput"], "catalog_name" | "catalog_type">;
export type CatalogRefList = Schemas["PaginatedCatalogOutputList"];
export type CatalogDatabases = Schemas["CatalogDatabases"];
export type CatalogTables = Schemas["CatalogTables"];
export type TableSummary = Schemas["TableSummaryOutput"];
export type ColumnInfo = Schemas["TableColumnOutput"];
export type TableDetail = Schemas["CatalogTable"];

/** `POST …/tables/{table}/sample/`: the newest records of a stream table, oldest first. */
export type TableSample = Schemas["TableSample"];
