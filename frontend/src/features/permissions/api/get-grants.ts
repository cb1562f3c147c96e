import { useQuery } from "@tanstack/react-query";

import { accessKeys, teamPath } from "@/features/permissions/api/keys";
import type { Grant, GrantList } from "@/features/permissions/types";
import { apiGet } from "@/lib/api-client";

/** The grants that hold on `securable`: on it, or on a level above it (`GET grants/?securable=`). */
export async function getGrants(team: string, securable: string): Promise<Grant[]> {
  return (await apiGet<GrantList>(`${teamPath(team)}grants/`, { securable, page_size: 500 })).results;
}

export function useGrants(team: string, securable: string) {
  return useQuery({ queryKey: accessKeys.grants(team, securable), queryFn: () => getGrants(team, securable) });
}
