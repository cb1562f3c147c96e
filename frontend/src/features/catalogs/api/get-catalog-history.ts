import { useQuery } from "@tanstack/react-query";

import { apiGet, rowsOf, type Paginated } from "@/lib/api-client";
import type { CatalogHistoryEntry } from "@/features/catalogs/types";

export async function getCatalogHistory(team: string, name: string): Promise<CatalogHistoryEntry[]> {
  return rowsOf(
    await apiGet<Paginated<CatalogHistoryEntry> | CatalogHistoryEntry[]>(
      `teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(name)}/history/`,
    ),
  );
}

export function useCatalogHistory(team: string, name: string) {
  return useQuery({ queryKey: ["catalogs", team, "history", name], queryFn: () => getCatalogHistory(team, name) });
}
