import { useMutation, useQueryClient } from "@tanstack/react-query";

import { scheduleKeys } from "@/features/jobs/api/get-schedules";
import { apiRequest } from "@/lib/api-client";
import type { Schedule, ScheduleInput } from "@/features/jobs/types";

/** Change a schedule (PATCH: only the fields given). */
export async function updateSchedule(team: string, id: number, input: Partial<ScheduleInput>): Promise<Schedule> {
  return (await apiRequest<Schedule>(`teams/${encodeURIComponent(team)}/schedules/${id}/`, { method: "PATCH", body: input })).data;
}

/** Delete a schedule (its past runs stay). */
export async function deleteSchedule(team: string, id: number): Promise<void> {
  await apiRequest<null>(`teams/${encodeURIComponent(team)}/schedules/${id}/`, { method: "DELETE" });
}

export function useUpdateSchedule(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: number; input: Partial<ScheduleInput> }) => updateSchedule(team, id, input),
    onSuccess: () => qc.invalidateQueries({ queryKey: scheduleKeys.all(team) }),
  });
}

export function useDeleteSchedule(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => deleteSchedule(team, id),
    onSuccess: () => qc.invalidateQueries({ queryKey: scheduleKeys.all(team) }),
  });
}
