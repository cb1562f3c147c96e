import { useQuery } from "@tanstack/react-query";

import { apiGet, type Paginated } from "@/lib/api-client";
import type { Job } from "@/features/jobs/types";

export function getJobs(team: string): Promise<Paginated<Job>> {
  return apiGet<Paginated<Job>>(`teams/${encodeURIComponent(team)}/jobs/`, { page_size: 200 });
}

export function useJobs(team: string) {
  return useQuery({ queryKey: ["jobs", team, "list"], queryFn: () => getJobs(team) });
}
