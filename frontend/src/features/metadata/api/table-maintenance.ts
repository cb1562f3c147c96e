import { queryOptions, useMutation, useQueryClient } from "@tanstack/react-query";

import { apiGet, apiPost } from "@/lib/api-client";
import type { components } from "@/lib/api-schema";
import { invalidateRuns, runKeys } from "@/lib/queries/runs";

type Run = components["schemas"]["RunOutput"];
export type MaintenanceRun = components["schemas"]["RunSummaryOutput"];
type RunResult = components["schemas"]["RunResultOutput"];

export type MaintenanceOperation = "optimize" | "vacuum";

const TERMINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED"]);
const e = encodeURIComponent;
const maintenancePath = (team: string, catalog: string, database: string, table: string) =>
  `teams/${e(team)}/catalogs/${e(catalog)}/databases/${e(database)}/tables/${e(table)}/maintenance/`;

export const maintenanceKeys = {
  history: (team: string, catalog: string, database: string, table: string) =>
    ["table-maintenance", team, catalog, database, table] as const,
};

/** Queue an OPTIMIZE or VACUUM run of a Delta table (`POST …/tables/{table}/maintenance/`, team admins). */
export function runMaintenance(team: string, catalog: string, database: string, table: string,
                               operation: MaintenanceOperation, retainHours?: number): Promise<Run> {
  return apiPost<Run>(maintenancePath(team, catalog, database, table),
    retainHours === undefined ? { operation } : { operation, retain_hours: retainHours });
}

export function useRunMaintenance(team: string, catalog: string, database: string, table: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ operation, retainHours }: { operation: MaintenanceOperation; retainHours?: number }) =>
      runMaintenance(team, catalog, database, table, operation, retainHours),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: maintenanceKeys.history(team, catalog, database, table) });
      invalidateRuns(qc, team);
    },
  });
}

/** The table's maintenance runs, newest first (every member); polled every 2 s while one is queued or running. */
export function maintenanceHistoryQuery(team: string, catalog: string, database: string, table: string) {
  return queryOptions({
    queryKey: maintenanceKeys.history(team, catalog, database, table),
    queryFn: async (): Promise<MaintenanceRun[]> =>
      (await apiGet<{ results: MaintenanceRun[] }>(maintenancePath(team, catalog, database, table))).results,
    refetchInterval: (q) => (q.state.data?.some((r) => !TERMINAL.has(r.status)) ? 2000 : false),
  });
}

/** A finished run's result (Delta's OPTIMIZE metrics or VACUUM's deleted-file count); it never changes. */
export function maintenanceResultQuery(team: string, id: number) {
  return queryOptions({
    queryKey: runKeys.result(team, String(id)),
    queryFn: () => apiGet<RunResult>(`teams/${e(team)}/runs/${e(String(id))}/result/`),
    staleTime: Infinity,
  });
}
