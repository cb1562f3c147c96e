// Metadata for SQL completion, fetched on demand while the user types and cached by TanStack Query.
import type { QueryClient } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

const META_STALE = 60_000;
const t = encodeURIComponent;

/** Query options for the team's catalog names (shared by the default-catalog picker and completion). */
export function catalogNamesQuery(team: string) {
  return {
    queryKey: ["sql-meta", team] as const,
    staleTime: META_STALE,
    queryFn: async () =>
      (await apiGet<Schemas["PaginatedCatalogOutputList"]>(`teams/${t(team)}/catalogs/`, { page_size: 500 })).results.map(
        (c) => ({ name: c.catalog_name, type: c.catalog_type }),
      ),
  };
}

export function fetchCatalogNames(qc: QueryClient, team: string): Promise<{ name: string; type: string }[]> {
  return qc.fetchQuery(catalogNamesQuery(team));
}

export function fetchDatabaseNames(qc: QueryClient, team: string, catalog: string): Promise<string[]> {
  return qc.fetchQuery({
    queryKey: ["sql-meta", team, catalog],
    staleTime: META_STALE,
    queryFn: async () => (await apiGet<Schemas["CatalogDatabases"]>(`teams/${t(team)}/catalogs/${t(catalog)}/databases/`)).databases,
  });
}

export function fetchTableNames(qc: QueryClient, team: string, catalog: string, database: string): Promise<string[]> {
  return qc.fetchQuery({
    queryKey: ["sql-meta", team, catalog, database],
    staleTime: META_STALE,
    queryFn: async () =>
      (await apiGet<Schemas["CatalogTables"]>(`teams/${t(team)}/catalogs/${t(catalog)}/databases/${t(database)}/tables/`)).tables.map((x) => x.name),
  });
}

export type ColumnMeta = Pick<Schemas["TableColumnOutput"], "name" | "type">;

export function fetchColumns(qc: QueryClient, team: string, catalog: string, database: string, table: string): Promise<ColumnMeta[]> {
  return qc.fetchQuery({
    queryKey: ["sql-meta", team, catalog, database, table],
    staleTime: META_STALE,
    queryFn: async () =>
      (await apiGet<Schemas["CatalogTable"]>(`teams/${t(team)}/catalogs/${t(catalog)}/databases/${t(database)}/tables/${t(table)}/`)).columns,
  });
}
