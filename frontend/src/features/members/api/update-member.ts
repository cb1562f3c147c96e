import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiRequest } from "@/lib/api-client";
import type { Member } from "@/features/members/types";

export async function updateMember(team: string, m: Member): Promise<Member> {
  return (await apiRequest<Member>(`teams/${encodeURIComponent(team)}/members/${encodeURIComponent(m.username)}/`, { method: "PATCH", body: { role: m.role } })).data;
}

export function useUpdateMember(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (m: Member) => updateMember(team, m),
    onSettled: () => {
      qc.invalidateQueries({ queryKey: ["members", team] });
      qc.invalidateQueries({ queryKey: ["me"] });
    },
  });
}
