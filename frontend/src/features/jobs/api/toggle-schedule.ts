import { useMutation, useQueryClient } from "@tanstack/react-query";

import { scheduleKeys } from "@/features/jobs/api/get-schedules";
import { apiPost } from "@/lib/api-client";
import type { Schedule } from "@/features/jobs/types";

/** Pause or resume a schedule (`action` is the endpoint's last segment). */
export function toggleSchedule(team: string, id: number, action: "pause" | "resume"): Promise<Schedule> {
  return apiPost<Schedule>(`teams/${encodeURIComponent(team)}/schedules/${id}/${action}/`);
}

export function useToggleSchedule(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, action }: { id: number; action: "pause" | "resume" }) => toggleSchedule(team, id, action),
    onSuccess: () => qc.invalidateQueries({ queryKey: scheduleKeys.all(team) }),
  });
}
