import { useQuery } from "@tanstack/react-query";

import { accessKeys, teamPath } from "@/features/permissions/api/keys";
import type { RowFilter, RowFilterList } from "@/features/permissions/types";
import { apiGet } from "@/lib/api-client";

/** The row filters of one table (`GET row-filters/?table=`); `expression` is null unless the caller may manage them. */
export async function getRowFilters(team: string, table: string): Promise<RowFilter[]> {
  return (await apiGet<RowFilterList>(`${teamPath(team)}row-filters/`, { table, page_size: 500 })).results;
}

export function useRowFilters(team: string, table: string) {
  return useQuery({ queryKey: accessKeys.rowFilters(team, table), queryFn: () => getRowFilters(team, table) });
}
