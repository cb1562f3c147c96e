import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import { apiRequest } from "@/lib/api-client";

export async function revokeGrant(team: string, id: number): Promise<void> {
  await apiRequest<null>(`${teamPath(team)}grants/${id}/`, { method: "DELETE" });
}

export function useRevokeGrant(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (id: number) => revokeGrant(team, id), onSuccess: () => invalidateAccess(qc, team) });
}
