// Runs: read by the runs feature, created by the jobs page and the SQL editor. The keys live here so those
// features invalidate what the runs pages read without importing them.
import type { QueryClient } from "@tanstack/react-query";

export type RunFilters = { status?: string; user?: string; job?: string; page?: number };

export const runKeys = {
  all: (team: string) => ["runs", team] as const,
  list: (team: string, f: RunFilters) => ["runs", team, "list", f] as const,
  detail: (team: string, id: string) => ["runs", team, "detail", id] as const,
  result: (team: string, id: string) => ["runs", team, "result", id] as const,
};

/** After a run was submitted or cancelled: the lists (and pages) show it. */
export function invalidateRuns(qc: QueryClient, team: string): void {
  void qc.invalidateQueries({ queryKey: runKeys.all(team) });
}
