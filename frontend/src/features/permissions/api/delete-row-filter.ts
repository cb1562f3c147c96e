import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import { apiRequest } from "@/lib/api-client";

/** Remove a row filter (`DELETE row-filters/{id}/`). */
export async function deleteRowFilter(team: string, id: number): Promise<void> {
  await apiRequest<null>(`${teamPath(team)}row-filters/${id}/`, { method: "DELETE" });
}

export function useDeleteRowFilter(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (id: number) => deleteRowFilter(team, id), onSuccess: () => invalidateAccess(qc, team) });
}
