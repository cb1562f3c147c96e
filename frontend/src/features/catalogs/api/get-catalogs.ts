import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { CatalogList } from "@/features/catalogs/types";

export type CatalogFilters = { catalogType?: string; namePrefix?: string; page?: number };

export function getCatalogs(team: string, f: CatalogFilters): Promise<CatalogList> {
  return apiGet<CatalogList>(`teams/${encodeURIComponent(team)}/catalogs/`, {
    catalog_type: f.catalogType,
    name_prefix: f.namePrefix,
    page: f.page && f.page > 1 ? f.page : undefined,
    page_size: 50,
  });
}

export function useCatalogs(team: string, f: CatalogFilters) {
  return useQuery({
    queryKey: ["catalogs", team, "list", f],
    queryFn: () => getCatalogs(team, f),
    placeholderData: keepPreviousData,
  });
}
