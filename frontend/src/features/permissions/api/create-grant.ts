import { useMutation, useQueryClient } from "@tanstack/react-query";

import { invalidateAccess } from "@/features/permissions/api/invalidate";
import { teamPath } from "@/features/permissions/api/keys";
import type { Grant, GrantInput } from "@/features/permissions/types";
import { apiPost } from "@/lib/api-client";

export function createGrant(team: string, input: GrantInput): Promise<Grant> {
  return apiPost<Grant>(`${teamPath(team)}grants/`, input);
}

export function useCreateGrant(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (g: GrantInput) => createGrant(team, g), onSuccess: () => invalidateAccess(qc, team) });
}
