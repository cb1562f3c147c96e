import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import type { Channel, ChannelInput, Page, TestResult } from "@/features/alerts/types";
import { apiGet, apiPost, apiRequest } from "@/lib/api-client";
import { alertKeys, invalidateAlerts } from "@/lib/queries/alerts";

const path = (team: string) => `teams/${encodeURIComponent(team)}/alert-channels/`;

export async function getChannels(team: string): Promise<Channel[]> {
  return (await apiGet<Page<Channel>>(path(team), { page_size: 200 })).results;
}

export function useChannels(team: string) {
  return useQuery({ queryKey: alertKeys.channels(team), queryFn: () => getChannels(team) });
}

export function useCreateChannel(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: ChannelInput) => apiPost<Channel>(path(team), input),
    onSuccess: () => invalidateAlerts(qc, team),
  });
}

export function useDeleteChannel(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) => {
      await apiRequest<null>(`${path(team)}${id}/`, { method: "DELETE" });
    },
    onSuccess: () => invalidateAlerts(qc, team),
  });
}

/** "Send test": one test alert now; the answer says whether the channel took it. */
export function useTestChannel(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => apiPost<TestResult>(`${path(team)}${id}/test/`),
    onSettled: () => invalidateAlerts(qc, team),
  });
}
