import { useMutation, useQueryClient } from "@tanstack/react-query";

import { memberKeys } from "@/features/members/api/get-members";
import { apiRequest } from "@/lib/api-client";
import { meQueryKey } from "@/lib/auth";
import type { Member, MemberInput } from "@/features/members/types";

export async function updateMember(team: string, m: MemberInput): Promise<Member> {
  return (await apiRequest<Member>(`teams/${encodeURIComponent(team)}/members/${encodeURIComponent(m.username)}/`, { method: "PATCH", body: { role: m.role } })).data;
}

export function useUpdateMember(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (m: MemberInput) => updateMember(team, m),
    onSettled: () => {
      qc.invalidateQueries({ queryKey: memberKeys.all(team) });
      qc.invalidateQueries({ queryKey: meQueryKey });
    },
  });
}
