import { useQuery } from "@tanstack/react-query";

import { apiGet, rowsOf, type Paginated } from "@/lib/api-client";
import type { CatalogTypeInfo } from "@/features/catalogs/types";

export async function getCatalogTypes(team: string): Promise<CatalogTypeInfo[]> {
  return rowsOf(await apiGet<Paginated<CatalogTypeInfo> | CatalogTypeInfo[]>(`teams/${encodeURIComponent(team)}/catalog-types/`));
}

export function useCatalogTypes(team: string) {
  return useQuery({ queryKey: ["catalog-types", team], queryFn: () => getCatalogTypes(team), staleTime: 5 * 60_000 });
}
