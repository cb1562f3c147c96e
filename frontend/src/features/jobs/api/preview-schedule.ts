import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { scheduleKeys } from "@/features/jobs/api/get-schedules";
import { apiGet } from "@/lib/api-client";
import type { SchedulePreview } from "@/features/jobs/types";

export function previewSchedule(team: string, cron: string, timeZone: string): Promise<SchedulePreview> {
  return apiGet<SchedulePreview>(`teams/${encodeURIComponent(team)}/schedules/preview/`, {
    cron,
    time_zone: timeZone,
  });
}

/** The next five fire times of what is typed so far (the caller debounces). */
export function useSchedulePreview(team: string, cron: string, timeZone: string) {
  return useQuery({
    queryKey: scheduleKeys.preview(team, cron, timeZone),
    queryFn: () => previewSchedule(team, cron, timeZone),
    enabled: cron.trim().length > 0,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}
