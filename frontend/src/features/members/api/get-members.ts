import { useQuery } from "@tanstack/react-query";

import { apiGet, rowsOf, type Paginated } from "@/lib/api-client";
import type { Member } from "@/features/members/types";

export async function getMembers(team: string): Promise<Member[]> {
  return rowsOf(await apiGet<Paginated<Member>>(`teams/${encodeURIComponent(team)}/members/`, { page_size: 200 }));
}

export function useMembers(team: string) {
  return useQuery({ queryKey: ["members", team], queryFn: () => getMembers(team) });
}
