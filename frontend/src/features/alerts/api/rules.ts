import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import type { Page, Rule, RuleInput } from "@/features/alerts/types";
import { apiGet, apiPost, apiRequest } from "@/lib/api-client";
import { alertKeys, invalidateAlerts } from "@/lib/queries/alerts";

const path = (team: string) => `teams/${encodeURIComponent(team)}/alert-rules/`;

export async function getRules(team: string): Promise<Rule[]> {
  return (await apiGet<Page<Rule>>(path(team), { page_size: 200 })).results;
}

export function useRules(team: string) {
  return useQuery({ queryKey: alertKeys.rules(team), queryFn: () => getRules(team) });
}

export function useCreateRule(team: string) {
  const qc = useQueryClient();
  return useMutation({ mutationFn: (input: RuleInput) => apiPost<Rule>(path(team), input), onSuccess: () => invalidateAlerts(qc, team) });
}

export function useDeleteRule(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) => {
      await apiRequest<null>(`${path(team)}${id}/`, { method: "DELETE" });
    },
    onSuccess: () => invalidateAlerts(qc, team),
  });
}
