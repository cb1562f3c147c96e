import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { Member, MemberList } from "@/features/members/types";

export const memberKeys = { all: (team: string) => ["members", team] as const };

export async function getMembers(team: string): Promise<Member[]> {
  return (await apiGet<MemberList>(`teams/${encodeURIComponent(team)}/members/`, { page_size: 200 })).results;
}

export function useMembers(team: string) {
  return useQuery({ queryKey: memberKeys.all(team), queryFn: () => getMembers(team) });
}
