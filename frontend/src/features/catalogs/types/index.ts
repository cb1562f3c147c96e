// Shapes of the catalog endpoints under /api/v1/teams/{team}/ (see catalogs/apis.py).

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

export type CatalogTypeInfo = {
  key: string;
  display_name?: string;
  description?: string;
  // the API names it `schema` or `configuration_schema`; both are read
  schema?: JsonSchema;
  configuration_schema?: JsonSchema;
  json_schema?: JsonSchema;
};

export type Catalog = {
  catalog_name: string;
  catalog_type: string;
  description?: string;
  configuration: Record<string, unknown>;
  version?: number;
  create_time?: string;
  update_time?: string;
  created_by?: string | null;
  updated_by?: string | null;
  secrets_set?: string[];
};

export type CatalogInput = {
  catalog_name: string;
  catalog_type: string;
  description: string;
  configuration: Record<string, unknown>;
};

export type ConnectionResult = { ok: boolean; message: string; elapsed_ms: number };

export type CatalogHistoryEntry = {
  id?: number;
  action?: string;
  version?: number;
  actor?: string | null;
  user?: string | null;
  username?: string | null;
  changed_by?: string | null;
  time?: string;
  timestamp?: string;
  created_at?: string;
  changes?: unknown;
  changed_fields?: string[];
  summary?: string;
};

export function schemaOf(t: CatalogTypeInfo | undefined): JsonSchema | undefined {
  return t?.schema ?? t?.configuration_schema ?? t?.json_schema;
}
