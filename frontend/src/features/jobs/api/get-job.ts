import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { Job } from "@/features/jobs/types";

export function getJob(team: string, id: string): Promise<Job> {
  return apiGet<Job>(`teams/${encodeURIComponent(team)}/jobs/${encodeURIComponent(id)}/`);
}

export function useJob(team: string, id: string) {
  return useQuery({ queryKey: ["jobs", team, "detail", id], queryFn: () => getJob(team, id) });
}
