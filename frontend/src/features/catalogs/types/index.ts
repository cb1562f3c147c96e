// Shapes of the catalog endpoints under /api/v1/teams/{team}/ as the OpenAPI schema declares them
// (lib/api-schema.d.ts is generated: `make client`); JsonSchema is the language of a type's configuration form.
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type JsonSchema = {
  type?: string | string[];
  title?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  pattern?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  items?: JsonSchema;
  secret?: boolean;
  writeOnly?: boolean;
  secretValues?: boolean;
};

export type CatalogType = Schemas["CatalogTypeEnum"];
export type CatalogTypeInfo = Schemas["CatalogTypeOutput"];
export type CatalogTypeList = Schemas["PaginatedCatalogTypeOutputList"];
export type Catalog = Schemas["CatalogOutput"];
export type CatalogList = Schemas["PaginatedCatalogOutputList"];
export type CatalogInput = Schemas["CatalogInputRequest"];
export type ConnectionResult = Schemas["ConnectionResult"];
export type CatalogHistoryEntry = Schemas["CatalogChangeOutput"];
export type CatalogHistory = Schemas["PaginatedCatalogChangeOutputList"];

/** The configuration's JSON Schema (the API declares it as any JSON; it is always a JSON Schema object). */
export function schemaOf(t: CatalogTypeInfo | undefined): JsonSchema | undefined {
  return t?.schema as JsonSchema | undefined;
}
