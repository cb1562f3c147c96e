// Shapes of the metadata endpoints under /api/v1/teams/{team}/catalogs/{name}/databases/… that only this feature
// reads (databases, tables and a table's detail are shared: lib/queries/metadata.ts), as the OpenAPI
// schema declares them (lib/api-schema.d.ts is generated: `make client`).
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type ColumnInfo = Schemas["TableColumnOutput"];

/** `POST …/tables/{table}/sample/`: the newest records of a stream table, oldest first. */
export type TableSample = Schemas["TableSample"];
