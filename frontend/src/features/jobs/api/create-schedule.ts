import { useMutation, useQueryClient } from "@tanstack/react-query";

import { scheduleKeys } from "@/features/jobs/api/get-schedules";
import { apiPost } from "@/lib/api-client";
import type { Schedule, ScheduleInput } from "@/features/jobs/types";

export function createSchedule(team: string, input: ScheduleInput): Promise<Schedule> {
  return apiPost<Schedule>(`teams/${encodeURIComponent(team)}/schedules/`, input);
}

export function useCreateSchedule(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: ScheduleInput) => createSchedule(team, input),
    onSuccess: () => qc.invalidateQueries({ queryKey: scheduleKeys.all(team) }),
  });
}
