import { useMutation } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import type { components } from "@/lib/api-schema";

type Run = components["schemas"]["RunOutput"];

export type MaintenanceOperation = "optimize" | "vacuum";

/** Queue an OPTIMIZE or VACUUM run of a Delta table (`POST …/tables/{table}/maintenance/`, team admins). */
export function runMaintenance(team: string, catalog: string, database: string, table: string,
                               operation: MaintenanceOperation, retainHours?: number): Promise<Run> {
  return apiPost<Run>(
    `teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(catalog)}/databases/${encodeURIComponent(database)}/tables/${encodeURIComponent(table)}/maintenance/`,
    retainHours === undefined ? { operation } : { operation, retain_hours: retainHours },
  );
}

export function useRunMaintenance(team: string, catalog: string, database: string, table: string) {
  return useMutation({
    mutationFn: ({ operation, retainHours }: { operation: MaintenanceOperation; retainHours?: number }) =>
      runMaintenance(team, catalog, database, table, operation, retainHours),
  });
}
