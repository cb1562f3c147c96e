import { useQuery } from "@tanstack/react-query";

import { apiGet, rowsOf, type Paginated } from "@/lib/api-client";
import type { CatalogRef } from "@/features/metadata/types";

export async function getCatalogNames(team: string): Promise<CatalogRef[]> {
  return rowsOf(await apiGet<Paginated<CatalogRef> | CatalogRef[]>(`teams/${encodeURIComponent(team)}/catalogs/`, { page_size: 500 }));
}

export function useCatalogNames(team: string) {
  return useQuery({ queryKey: ["catalogs", team, "names"], queryFn: () => getCatalogNames(team) });
}
