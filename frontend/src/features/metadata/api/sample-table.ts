import { useMutation } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import { metadataKeys } from "@/lib/queries/metadata";
import type { TableSample } from "@/features/metadata/types";

export const SAMPLE_LIMIT = 20;

/** The newest records of a stream table (`POST …/tables/{table}/sample/`). */
export function sampleTable(team: string, catalog: string, database: string, table: string, limit = SAMPLE_LIMIT): Promise<TableSample> {
  return apiPost<TableSample>(
    `teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(catalog)}/databases/${encodeURIComponent(database)}/tables/${encodeURIComponent(table)}/sample/`,
    { limit },
  );
}

export function useSampleTable(team: string, catalog: string, database: string, table: string) {
  return useMutation({
    mutationKey: metadataKeys.sample(team, catalog, database, table),
    mutationFn: (limit: number = SAMPLE_LIMIT) => sampleTable(team, catalog, database, table, limit),
  });
}
