import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import { apiRequest } from "@/lib/api-client";

/** Delete a group; the API revokes its grants (each recorded in the catalog history). */
export async function deleteGroup(team: string, name: string): Promise<void> {
  await apiRequest<null>(`${teamPath(team)}groups/${encodeURIComponent(name)}/`, { method: "DELETE" });
}

export function useDeleteGroup(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (name: string) => deleteGroup(team, name), onSuccess: () => invalidateAccess(qc, team) });
}
