// Metadata for SQL completion, fetched on demand while the user types and cached by TanStack Query.
import type { QueryClient } from "@tanstack/react-query";

import { apiGet, rowsOf, type Paginated } from "@/lib/api-client";

type Named = string | { name?: string; catalog_name?: string };

function names(data: unknown, key: string): string[] {
  let list: unknown = data;
  if (list && typeof list === "object" && !Array.isArray(list)) {
    const o = list as Record<string, unknown>;
    list = o[key] ?? o.results ?? [];
  }
  if (!Array.isArray(list)) return [];
  return (list as Named[]).map((x) => (typeof x === "string" ? x : (x.catalog_name ?? x.name ?? ""))).filter(Boolean);
}

const META_STALE = 60_000;
const t = encodeURIComponent;

/** Query options for the team's catalog names (shared by the default-catalog picker and completion). */
export function catalogNamesQuery(team: string) {
  return {
    queryKey: ["sql-meta", team] as const,
    staleTime: META_STALE,
    queryFn: async () =>
      rowsOf(await apiGet<Paginated<{ catalog_name: string; catalog_type: string }>>(`teams/${t(team)}/catalogs/`, { page_size: 500 })).map(
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
    queryFn: async () => names(await apiGet<unknown>(`teams/${t(team)}/catalogs/${t(catalog)}/databases/`), "databases"),
  });
}

export function fetchTableNames(qc: QueryClient, team: string, catalog: string, database: string): Promise<string[]> {
  return qc.fetchQuery({
    queryKey: ["sql-meta", team, catalog, database],
    staleTime: META_STALE,
    queryFn: async () => names(await apiGet<unknown>(`teams/${t(team)}/catalogs/${t(catalog)}/databases/${t(database)}/tables/`), "tables"),
  });
}

export type ColumnMeta = { name: string; type: string };

export function fetchColumns(qc: QueryClient, team: string, catalog: string, database: string, table: string): Promise<ColumnMeta[]> {
  return qc.fetchQuery({
    queryKey: ["sql-meta", team, catalog, database, table],
    staleTime: META_STALE,
    queryFn: async () => {
      const d = await apiGet<{ columns?: ColumnMeta[] }>(`teams/${t(team)}/catalogs/${t(catalog)}/databases/${t(database)}/tables/${t(table)}/`);
      return d.columns ?? [];
    },
  });
}
