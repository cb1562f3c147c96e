import { queryOptions, useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { ScheduleList } from "@/features/jobs/types";

/** Schedules are read only by the jobs feature: their keys live with its requests. */
export const scheduleKeys = {
  all: (team: string) => ["schedules", team] as const,
  ofJob: (team: string, jobId: string) => ["schedules", team, "job", jobId] as const,
  preview: (team: string, cron: string, timeZone: string) => ["schedules", team, "preview", cron, timeZone] as const,
};

export function getSchedules(team: string, jobId: string): Promise<ScheduleList> {
  return apiGet<ScheduleList>(`teams/${encodeURIComponent(team)}/schedules/`, { job: jobId, page_size: 100 });
}

/** A job's schedules; refreshed every 15 s so fires and next times stay current. `enabled` is false for a
 * streaming job, which has none. */
export function useSchedules(team: string, jobId: string, enabled = true) {
  return useQuery(
    queryOptions({ queryKey: scheduleKeys.ofJob(team, jobId), queryFn: () => getSchedules(team, jobId), enabled, refetchInterval: 15_000 }),
  );
}
