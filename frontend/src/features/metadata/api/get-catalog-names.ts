import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { CatalogRef, CatalogRefList } from "@/features/metadata/types";

export async function getCatalogNames(team: string): Promise<CatalogRef[]> {
  return (await apiGet<CatalogRefList>(`teams/${encodeURIComponent(team)}/catalogs/`, { page_size: 500 })).results;
}

export function useCatalogNames(team: string) {
  return useQuery({ queryKey: ["catalogs", team, "names"], queryFn: () => getCatalogNames(team) });
}
