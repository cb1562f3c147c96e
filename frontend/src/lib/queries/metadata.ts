// What a catalog holds (databases, tables, a table's columns), read by the metadata browser and by SQL
// completion: one key layout under ["metadata", team, catalog, …], so both share the cache and
// `invalidateCatalogs` (lib/queries/catalogs.ts) clears both.
import { queryOptions } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type TableSummary = Schemas["TableSummaryOutput"];
export type TableDetail = Schemas["CatalogTable"];

const META_STALE = 60_000;
const e = encodeURIComponent;
const dbPath = (team: string, catalog: string, database: string) => `teams/${e(team)}/catalogs/${e(catalog)}/databases/${e(database)}/`;

export const metadataKeys = {
  all: (team: string) => ["metadata", team] as const,
  /** Everything loaded under one catalog (a prefix: the browser's filter searches it). */
  catalog: (team: string, catalog: string) => ["metadata", team, catalog] as const,
  databases: (team: string, catalog: string) => ["metadata", team, catalog, "databases"] as const,
  tables: (team: string, catalog: string, database: string) => ["metadata", team, catalog, "tables", database] as const,
  table: (team: string, catalog: string, database: string, table: string) => ["metadata", team, catalog, "table", database, table] as const,
  sample: (team: string, catalog: string, database: string, table: string) => ["metadata", team, catalog, "sample", database, table] as const,
};

export function databasesQuery(team: string, catalog: string) {
  return queryOptions({
    queryKey: metadataKeys.databases(team, catalog),
    queryFn: async () => (await apiGet<Schemas["CatalogDatabases"]>(`teams/${e(team)}/catalogs/${e(catalog)}/databases/`)).databases,
    staleTime: META_STALE,
  });
}

export function tablesQuery(team: string, catalog: string, database: string) {
  return queryOptions({
    queryKey: metadataKeys.tables(team, catalog, database),
    queryFn: async (): Promise<TableSummary[]> => (await apiGet<Schemas["CatalogTables"]>(`${dbPath(team, catalog, database)}tables/`)).tables,
    staleTime: META_STALE,
  });
}

/** A table's columns, partitioning and (for Delta) version and row count. */
export function tableQuery(team: string, catalog: string, database: string, table: string) {
  return queryOptions({
    queryKey: metadataKeys.table(team, catalog, database, table),
    queryFn: () => apiGet<TableDetail>(`${dbPath(team, catalog, database)}tables/${e(table)}/`),
    staleTime: META_STALE,
  });
}
