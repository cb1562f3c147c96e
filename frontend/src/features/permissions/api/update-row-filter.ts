import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import type { RowFilter, RowFilterPatch } from "@/features/permissions/types";
import { apiRequest } from "@/lib/api-client";

/** Change a row filter's expression or description (`PATCH row-filters/{id}/`). */
export async function updateRowFilter(team: string, id: number, patch: RowFilterPatch): Promise<RowFilter> {
  return (await apiRequest<RowFilter>(`${teamPath(team)}row-filters/${id}/`, { method: "PATCH", body: patch })).data;
}

export function useUpdateRowFilter(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: number; patch: RowFilterPatch }) => updateRowFilter(team, id, patch),
    onSuccess: () => invalidateAccess(qc, team),
  });
}
