import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { CatalogTables, TableSummary } from "@/features/metadata/types";

export async function getTables(team: string, catalog: string, database: string): Promise<TableSummary[]> {
  const data = await apiGet<CatalogTables>(
    `teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(catalog)}/databases/${encodeURIComponent(database)}/tables/`,
  );
  return data.tables;
}

export function useTables(team: string, catalog: string, database: string, enabled: boolean) {
  return useQuery({
    queryKey: ["metadata", team, catalog, database],
    queryFn: () => getTables(team, catalog, database),
    enabled,
    staleTime: 60_000,
  });
}
