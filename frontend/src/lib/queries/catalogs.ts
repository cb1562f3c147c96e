// The team's catalogs, read by the catalogs pages, the metadata browser and the SQL editor (picker, completion):
// one key layout and one set of query options for all of them, so they share one cache entry per request and a
// change invalidates every view of it.
import { keepPreviousData, queryOptions, type QueryClient } from "@tanstack/react-query";

import { apiGet, apiRequest } from "@/lib/api-client";
import type { components } from "@/lib/api-schema";
import { metadataKeys } from "@/lib/queries/metadata";

type Schemas = components["schemas"];

export type Catalog = Schemas["CatalogOutput"];
export type CatalogList = Schemas["PaginatedCatalogOutputList"];
export type CatalogHistoryEntry = Schemas["CatalogChangeOutput"];
/** A catalog as pickers and trees show it: its name and type. */
export type CatalogRef = Pick<Catalog, "catalog_name" | "catalog_type">;
export type CatalogWithEtag = { catalog: Catalog; etag: string | null };
export type CatalogFilters = { catalogType?: string; namePrefix?: string; page?: number };

const path = (team: string, name?: string) =>
  `teams/${encodeURIComponent(team)}/catalogs/${name === undefined ? "" : `${encodeURIComponent(name)}/`}`;

export const catalogKeys = {
  all: (team: string) => ["catalogs", team] as const,
  list: (team: string, f: CatalogFilters) => ["catalogs", team, "list", f] as const,
  names: (team: string) => ["catalogs", team, "names"] as const,
  detail: (team: string, name: string | undefined) => ["catalogs", team, "detail", name] as const,
  history: (team: string, name: string) => ["catalogs", team, "history", name] as const,
};

/** One page of the catalogs list (50 a page), filtered by type and name prefix. */
export function catalogListQuery(team: string, f: CatalogFilters) {
  return queryOptions({
    queryKey: catalogKeys.list(team, f),
    queryFn: () =>
      apiGet<CatalogList>(path(team), {
        catalog_type: f.catalogType,
        name_prefix: f.namePrefix,
        page: f.page && f.page > 1 ? f.page : undefined,
        page_size: 50,
      }),
    placeholderData: keepPreviousData,
  });
}

/** Every catalog's name and type (up to 500): the metadata tree, the default-catalog picker and completion. */
export function catalogNamesQuery(team: string) {
  return queryOptions({
    queryKey: catalogKeys.names(team),
    queryFn: async (): Promise<CatalogRef[]> =>
      (await apiGet<CatalogList>(path(team), { page_size: 500 })).results.map((c) => ({
        catalog_name: c.catalog_name,
        catalog_type: c.catalog_type,
      })),
    staleTime: 60_000,
  });
}

/** One catalog with its ETag (sent back as If-Match by an edit or a delete); never served stale. */
export function catalogQuery(team: string, name: string | undefined) {
  return queryOptions({
    queryKey: catalogKeys.detail(team, name),
    queryFn: async (): Promise<CatalogWithEtag> => {
      const res = await apiRequest<Catalog>(path(team, name));
      return { catalog: res.data, etag: res.headers.get("ETag") };
    },
    enabled: !!name,
    staleTime: 0,
  });
}

export function catalogHistoryQuery(team: string, name: string) {
  return queryOptions({
    queryKey: catalogKeys.history(team, name),
    queryFn: async () => (await apiGet<Schemas["PaginatedCatalogChangeOutputList"]>(`${path(team, name)}history/`)).results,
  });
}

/** After a catalog was created, changed or deleted: its lists, names, details and the metadata read through it
 * are stale. `refetch: false` only marks them (a page still showing a deleted catalog must not ask for it again). */
export function invalidateCatalogs(qc: QueryClient, team: string, { refetch = true } = {}): void {
  for (const queryKey of [catalogKeys.all(team), metadataKeys.all(team)]) {
    void qc.invalidateQueries({ queryKey, refetchType: refetch ? "active" : "none" });
  }
}
