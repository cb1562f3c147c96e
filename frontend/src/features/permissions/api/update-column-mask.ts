import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import type { ColumnMask, ColumnMaskPatch } from "@/features/permissions/types";
import { apiRequest } from "@/lib/api-client";

/** Change a column mask's expression or description (`PATCH column-masks/{id}/`). */
export async function updateColumnMask(team: string, id: number, patch: ColumnMaskPatch): Promise<ColumnMask> {
  return (await apiRequest<ColumnMask>(`${teamPath(team)}column-masks/${id}/`, { method: "PATCH", body: patch })).data;
}

export function useUpdateColumnMask(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: number; patch: ColumnMaskPatch }) => updateColumnMask(team, id, patch),
    onSuccess: () => invalidateAccess(qc, team),
  });
}
