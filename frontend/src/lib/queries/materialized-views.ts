// Materialized views of a Delta catalog (docs/materialized-views.md): the list with freshness, one view's refresh
// history, and queuing a refresh run. Keys under ["materialized-views", team, catalog] so a refresh invalidates
// every view of them; a refresh is a run, so the runs pages are invalidated too.
import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";

import { apiGet, apiPost } from "@/lib/api-client";
import type { components } from "@/lib/api-schema";
import { invalidateRuns } from "@/lib/queries/runs";

type Schemas = components["schemas"];

/** A view with freshness; `next_refresh`, `schedule_id` and `refresh_again` are newer than the API snapshot. */
export type MaterializedView = Schemas["MaterializedView"] & {
  next_refresh?: string | null;
  schedule_id?: number | null;
  refresh_again?: boolean;
};
export type RefreshRun = Schemas["RunSummaryOutput"];
/** What `last_refresh` holds (the API types it as JSON). */
export type LastRefresh = {
  at?: string;
  mode?: string;
  reason?: string | null;
  rows?: number | null;
  error?: string;
  failed_at?: string;
} | null;

const TERMINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);
const e = encodeURIComponent;
const base = (team: string, catalog: string) => `teams/${e(team)}/catalogs/${e(catalog)}/materialized-views/`;
const viewPath = (team: string, catalog: string, database: string, view: string) =>
  `${base(team, catalog)}${e(database)}/${e(view)}/`;

export const materializedViewKeys = {
  all: (team: string) => ["materialized-views", team] as const,
  catalog: (team: string, catalog: string) => ["materialized-views", team, catalog] as const,
  list: (team: string, catalog: string) => ["materialized-views", team, catalog, "list"] as const,
  history: (team: string, catalog: string, database: string, view: string) =>
    ["materialized-views", team, catalog, "history", database, view] as const,
};

/** The catalog's views (up to 200) with state, staleness, last and next refresh; polled while a refresh runs. */
export function materializedViewsQuery(team: string, catalog: string) {
  return queryOptions({
    queryKey: materializedViewKeys.list(team, catalog),
    queryFn: async (): Promise<MaterializedView[]> =>
      (await apiGet<{ results: MaterializedView[] }>(base(team, catalog), { page_size: 200 })).results,
    refetchInterval: 15_000,
  });
}

/** A view's refresh runs, newest first; polled every 2 s while one is queued or running. */
export function refreshHistoryQuery(team: string, catalog: string, database: string, view: string) {
  return queryOptions({
    queryKey: materializedViewKeys.history(team, catalog, database, view),
    queryFn: async (): Promise<RefreshRun[]> =>
      (await apiGet<{ results: RefreshRun[] }>(`${viewPath(team, catalog, database, view)}refresh/`)).results,
    refetchInterval: (q) => (q.state.data?.some((r) => !TERMINAL.has(r.status)) ? 2000 : false),
  });
}

/** Queue a refresh run of a view (`full`: REFRESH … FULL); developers and admins. */
export function useRefreshView(team: string, catalog: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ database, view, full }: { database: string; view: string; full: boolean }) =>
      apiPost<RefreshRun>(`${viewPath(team, catalog, database, view)}refresh/${full ? "?full=true" : ""}`),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: materializedViewKeys.catalog(team, catalog) });
      invalidateRuns(qc, team);
    },
  });
}
