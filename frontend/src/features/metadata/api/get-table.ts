import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { TableDetail } from "@/features/metadata/types";

export function getTable(team: string, catalog: string, database: string, table: string): Promise<TableDetail> {
  return apiGet<TableDetail>(
    `teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(catalog)}/databases/${encodeURIComponent(database)}/tables/${encodeURIComponent(table)}/`,
  );
}

export function useTable(team: string, catalog: string, database: string, table: string, enabled = true) {
  return useQuery({
    queryKey: ["metadata", team, catalog, database, table, "detail"],
    queryFn: () => getTable(team, catalog, database, table),
    enabled,
    staleTime: 60_000,
  });
}
