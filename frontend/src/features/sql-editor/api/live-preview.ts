import { useMutation, useQuery } from "@tanstack/react-query";

import { apiGet, apiPost, apiRequest } from "@/lib/api-client";
import type { LivePreview } from "@/features/sql-editor/types";

const base = (team: string) => `teams/${encodeURIComponent(team)}/sql/preview/live/`;
const POLL_MS = 1000;

/** `defaultCatalog`: where unqualified names resolve, as in a run of the job ("" for none). */
export function startLivePreview(team: string, sql: string, defaultCatalog = ""): Promise<LivePreview> {
  return apiPost<LivePreview>(base(team), { sql, default_catalog: defaultCatalog });
}

export function getLivePreview(team: string, id: string): Promise<LivePreview> {
  return apiGet<LivePreview>(`${base(team)}${encodeURIComponent(id)}/`);
}

export async function stopLivePreview(team: string, id: string): Promise<LivePreview> {
  return (await apiRequest<LivePreview>(`${base(team)}${encodeURIComponent(id)}/`, { method: "DELETE" })).data;
}

export function useStartLivePreview(team: string) {
  return useMutation({
    mutationFn: ({ sql, defaultCatalog = "" }: { sql: string; defaultCatalog?: string }) =>
      startLivePreview(team, sql, defaultCatalog),
  });
}

export function useStopLivePreview(team: string) {
  return useMutation({ mutationFn: ({ id }: { id: string }) => stopLivePreview(team, id) });
}

export const isLive = (p: LivePreview | undefined) => p?.status === "STARTING" || p?.status === "RUNNING";

/** The live preview's rows so far, polled every second until it stops (by itself, or when asked). */
export function useLivePreview(team: string, id: string | null) {
  return useQuery({
    queryKey: ["sql-live-preview", team, id],
    queryFn: () => getLivePreview(team, id!),
    enabled: id !== null,
    refetchInterval: (query) => (isLive(query.state.data) || !query.state.data ? POLL_MS : false),
    retry: false,
  });
}
