import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import { apiRequest } from "@/lib/api-client";

/** Remove a column mask (`DELETE column-masks/{id}/`). */
export async function deleteColumnMask(team: string, id: number): Promise<void> {
  await apiRequest<null>(`${teamPath(team)}column-masks/${id}/`, { method: "DELETE" });
}

export function useDeleteColumnMask(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (id: number) => deleteColumnMask(team, id), onSuccess: () => invalidateAccess(qc, team) });
}
