import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { StreamState } from "@/features/streams/types";
import { isActive } from "@/features/streams/utils/stream-actions";

export const streamStateKey = (team: string, jobId: string | number) => ["streams", team, String(jobId), "state"];

export function streamPath(team: string, jobId: string | number, rest = ""): string {
  return `teams/${encodeURIComponent(team)}/jobs/${encodeURIComponent(String(jobId))}/stream/${rest}`;
}

export function getStreamState(team: string, jobId: string | number): Promise<StreamState> {
  return apiGet<StreamState>(streamPath(team, jobId));
}

/** A streaming job's state, polled every 2 s while a driver is starting, running, restarting or stopping. */
export function useStreamState(team: string, jobId: string | number) {
  return useQuery({
    queryKey: streamStateKey(team, jobId),
    queryFn: () => getStreamState(team, jobId),
    refetchInterval: (query) => (isActive(query.state.data?.status) ? 2000 : false),
  });
}
