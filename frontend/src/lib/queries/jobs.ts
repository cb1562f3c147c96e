// The team's saved jobs, read by the jobs pages and the SQL editor (its job picker): one key layout and one set
// of query options, so both share the cache and every save invalidates both.
import { queryOptions, type QueryClient } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { components } from "@/lib/api-schema";

type Schemas = components["schemas"];

export type Job = Schemas["JobOutput"];
export type JobList = Schemas["PaginatedJobOutputList"];

const path = (team: string) => `teams/${encodeURIComponent(team)}/jobs/`;

export const jobKeys = {
  all: (team: string) => ["jobs", team] as const,
  list: (team: string) => ["jobs", team, "list"] as const,
  // ids come as numbers from the API and as strings from the URL: one key for both
  detail: (team: string, id: string | number) => ["jobs", team, "detail", String(id)] as const,
};

/** The team's jobs (up to 200). */
export function jobListQuery(team: string) {
  return queryOptions({ queryKey: jobKeys.list(team), queryFn: () => apiGet<JobList>(path(team), { page_size: 200 }) });
}

export function jobQuery(team: string, id: string | number) {
  return queryOptions({ queryKey: jobKeys.detail(team, id), queryFn: () => apiGet<Job>(`${path(team)}${encodeURIComponent(String(id))}/`) });
}

/** After a job was created or changed: the list and every job's page. */
export function invalidateJobs(qc: QueryClient, team: string): void {
  void qc.invalidateQueries({ queryKey: jobKeys.all(team) });
}
