import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { CatalogDatabases } from "@/features/metadata/types";

export async function getDatabases(team: string, catalog: string): Promise<string[]> {
  const data = await apiGet<CatalogDatabases>(`teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(catalog)}/databases/`);
  return data.databases;
}

export function useDatabases(team: string, catalog: string, enabled: boolean) {
  return useQuery({ queryKey: ["metadata", team, catalog], queryFn: () => getDatabases(team, catalog), enabled, staleTime: 60_000 });
}
