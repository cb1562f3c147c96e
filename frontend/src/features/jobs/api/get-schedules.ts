import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { ScheduleList } from "@/features/jobs/types";

export function getSchedules(team: string, jobId: string): Promise<ScheduleList> {
  return apiGet<ScheduleList>(`teams/${encodeURIComponent(team)}/schedules/`, { job: jobId, page_size: 100 });
}

/** A job's schedules; refreshed every 15 s so fires and next times stay current. `enabled` is false for a
 * streaming job, which has none. */
export function useSchedules(team: string, jobId: string, enabled = true) {
  return useQuery({
    queryKey: ["schedules", team, "job", jobId],
    queryFn: () => getSchedules(team, jobId),
    enabled,
    refetchInterval: 15_000,
  });
}
