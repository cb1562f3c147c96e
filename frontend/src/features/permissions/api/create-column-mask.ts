import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import type { ColumnMask, ColumnMaskInput } from "@/features/permissions/types";
import { apiPost } from "@/lib/api-client";

/** Attach a column mask (`POST column-masks/`): 400 naming the field, 409 when there is one already, 403 without MANAGE. */
export function createColumnMask(team: string, input: ColumnMaskInput): Promise<ColumnMask> {
  return apiPost<ColumnMask>(`${teamPath(team)}column-masks/`, input);
}

export function useCreateColumnMask(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (input: ColumnMaskInput) => createColumnMask(team, input), onSuccess: () => invalidateAccess(qc, team) });
}
