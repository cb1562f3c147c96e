import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import type { AccessGroup, GroupInput } from "@/features/permissions/types";
import { apiPost } from "@/lib/api-client";

export function createGroup(team: string, input: GroupInput): Promise<AccessGroup> {
  return apiPost<AccessGroup>(`${teamPath(team)}groups/`, input);
}

export function useCreateGroup(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (g: GroupInput) => createGroup(team, g), onSuccess: () => invalidateAccess(qc, team) });
}
