import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { apiGet, type Paginated } from "@/lib/api-client";
import type { Catalog } from "@/features/catalogs/types";

export type CatalogFilters = { catalogType?: string; namePrefix?: string; page?: number };

export async function getCatalogs(team: string, f: CatalogFilters): Promise<Paginated<Catalog>> {
  const data = await apiGet<Paginated<Catalog> | Catalog[]>(`teams/${encodeURIComponent(team)}/catalogs/`, {
    catalog_type: f.catalogType,
    name_prefix: f.namePrefix,
    page: f.page && f.page > 1 ? f.page : undefined,
    page_size: 50,
  });
  return Array.isArray(data) ? { count: data.length, next: null, previous: null, results: data } : data;
}

export function useCatalogs(team: string, f: CatalogFilters) {
  return useQuery({
    queryKey: ["catalogs", team, "list", f],
    queryFn: () => getCatalogs(team, f),
    placeholderData: keepPreviousData,
  });
}
