import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import type { RowFilter, RowFilterInput } from "@/features/permissions/types";
import { apiPost } from "@/lib/api-client";

/** Attach a row filter (`POST row-filters/`): 400 naming the field, 409 when there is one already, 403 without MANAGE. */
export function createRowFilter(team: string, input: RowFilterInput): Promise<RowFilter> {
  return apiPost<RowFilter>(`${teamPath(team)}row-filters/`, input);
}

export function useCreateRowFilter(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (input: RowFilterInput) => createRowFilter(team, input), onSuccess: () => invalidateAccess(qc, team) });
}
