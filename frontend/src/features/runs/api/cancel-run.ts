import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import { runKeys } from "@/lib/queries/runs";
import type { Run } from "@/features/runs/types";

export function cancelRun(team: string, id: string): Promise<Run> {
  return apiPost<Run>(`teams/${encodeURIComponent(team)}/runs/${encodeURIComponent(id)}/cancel/`, {});
}

export function useCancelRun(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => cancelRun(team, id),
    onSettled: (_d, _e, id) => qc.invalidateQueries({ queryKey: runKeys.detail(team, id) }),
  });
}
