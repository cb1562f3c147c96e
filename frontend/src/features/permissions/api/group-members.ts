import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import type { AccessGroup } from "@/features/permissions/types";
import { apiPost, apiRequest } from "@/lib/api-client";

type MemberChange = { group: string; username: string };

const membersPath = (team: string, group: string) => `${teamPath(team)}groups/${encodeURIComponent(group)}/members/`;

/** Add a team member to a group (`POST groups/{group}/members/`). */
export function addGroupMember(team: string, { group, username }: MemberChange): Promise<AccessGroup> {
  return apiPost<AccessGroup>(membersPath(team, group), { username });
}

/** Take a user out of a group (`DELETE groups/{group}/members/{username}/`). */
export async function removeGroupMember(team: string, { group, username }: MemberChange): Promise<void> {
  await apiRequest<null>(`${membersPath(team, group)}${encodeURIComponent(username)}/`, { method: "DELETE" });
}

export function useAddGroupMember(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (m: MemberChange) => addGroupMember(team, m), onSuccess: () => invalidateAccess(qc, team) });
}

export function useRemoveGroupMember(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (m: MemberChange) => removeGroupMember(team, m), onSuccess: () => invalidateAccess(qc, team) });
}
