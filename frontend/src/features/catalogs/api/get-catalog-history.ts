import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { CatalogHistory, CatalogHistoryEntry } from "@/features/catalogs/types";

export async function getCatalogHistory(team: string, name: string): Promise<CatalogHistoryEntry[]> {
  return (await apiGet<CatalogHistory>(`teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(name)}/history/`)).results;
}

export function useCatalogHistory(team: string, name: string) {
  return useQuery({ queryKey: ["catalogs", team, "history", name], queryFn: () => getCatalogHistory(team, name) });
}
