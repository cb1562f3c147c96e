import { useQuery } from "@tanstack/react-query";

import { accessKeys, teamPath } from "@/features/permissions/api/keys";
import type { ColumnMask, ColumnMaskList } from "@/features/permissions/types";
import { apiGet } from "@/lib/api-client";

/** The column masks of one table (`GET column-masks/?table=`); `expression` is null unless the caller may manage them. */
export async function getColumnMasks(team: string, table: string): Promise<ColumnMask[]> {
  return (await apiGet<ColumnMaskList>(`${teamPath(team)}column-masks/`, { table, page_size: 500 })).results;
}

export function useColumnMasks(team: string, table: string) {
  return useQuery({ queryKey: accessKeys.columnMasks(team, table), queryFn: () => getColumnMasks(team, table) });
}
