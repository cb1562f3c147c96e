import { useQuery } from "@tanstack/react-query";

import { accessKeys, teamPath } from "@/features/permissions/api/keys";
import type { AccessGroup, AccessGroupList } from "@/features/permissions/types";
import { apiGet } from "@/lib/api-client";

/** The team's groups with their members (any member reads them). */
export async function getGroups(team: string): Promise<AccessGroup[]> {
  return (await apiGet<AccessGroupList>(`${teamPath(team)}groups/`, { page_size: 500 })).results;
}

export function useGroups(team: string) {
  return useQuery({ queryKey: accessKeys.groups(team), queryFn: () => getGroups(team) });
}
