import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { CatalogTypeInfo, CatalogTypeList } from "@/features/catalogs/types";

export async function getCatalogTypes(team: string): Promise<CatalogTypeInfo[]> {
  return (await apiGet<CatalogTypeList>(`teams/${encodeURIComponent(team)}/catalog-types/`)).results;
}

export function useCatalogTypes(team: string) {
  return useQuery({ queryKey: ["catalog-types", team], queryFn: () => getCatalogTypes(team), staleTime: 5 * 60_000 });
}
