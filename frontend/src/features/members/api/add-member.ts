import { useMutation, useQueryClient } from "@tanstack/react-query";

import { memberKeys } from "@/features/members/api/get-members";
import { apiPost } from "@/lib/api-client";
import type { Member, MemberInput } from "@/features/members/types";

export function addMember(team: string, input: MemberInput): Promise<Member> {
  return apiPost<Member>(`teams/${encodeURIComponent(team)}/members/`, input);
}

export function useAddMember(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (m: MemberInput) => addMember(team, m), onSuccess: () => qc.invalidateQueries({ queryKey: memberKeys.all(team) }) });
}
