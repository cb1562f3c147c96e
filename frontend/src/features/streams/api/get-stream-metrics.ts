import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { StreamMetrics } from "@/features/streams/types";
import { streamPath } from "@/features/streams/api/get-stream-state";
import { rangeParams } from "@/features/streams/utils/metric-format";

export const streamMetricsKey = (team: string, jobId: string | number) => ["streams", team, String(jobId), "metrics"];

/** Metrics of the batches since `since` (and until `until`, when given; ISO 8601), oldest first, at most the
 * newest 2,000. */
export function getStreamMetrics(team: string, jobId: string | number, since: string, until?: string): Promise<StreamMetrics> {
  return apiGet<StreamMetrics>(streamPath(team, jobId, "metrics/"), { since, until });
}

/** The last `minutes` of metrics; with `live`, the window slides forward and is re-read every 2 s. */
export function useStreamMetrics(team: string, jobId: string | number, minutes: number, live: boolean) {
  return useQuery({
    queryKey: [...streamMetricsKey(team, jobId), minutes],
    queryFn: () => getStreamMetrics(team, jobId, rangeParams(minutes).since),
    refetchInterval: live ? 2000 : false,
    // keep the chart on screen while the next window loads (no flicker on a range switch)
    placeholderData: keepPreviousData,
  });
}
