import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiRequest } from "@/lib/api-client";
import { invalidateCatalogs } from "@/lib/queries/catalogs";

export type StreamColumn = { name: string; type: string };
export type ConfirmStreamSchema = { catalog: string; database: string; table: string; columns: StreamColumn[]; eventTime?: string };

type StreamCatalog = { configuration: { tables?: Record<string, unknown> } };

/** Declare a stream table's inferred schema in its catalog: `tables["<db>.<table>"]` gets these columns and event
 * time. A PATCH with If-Match sends only `tables` (the server keeps every other key and every secret), so a change
 * someone made meanwhile answers 412 instead of being overwritten. */
export async function confirmStreamSchema(team: string, v: ConfirmStreamSchema): Promise<void> {
  const path = `teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(v.catalog)}/`;
  const current = await apiRequest<StreamCatalog>(path);
  const etag = current.headers.get("ETag");
  const tables = {
    ...(current.data.configuration.tables ?? {}),
    [`${v.database}.${v.table}`]: { columns: v.columns, ...(v.eventTime ? { "event-time": v.eventTime } : {}) },
  };
  await apiRequest(path, { method: "PATCH", body: { configuration: { tables } }, headers: etag ? { "If-Match": etag } : {} });
}

export function useConfirmStreamSchema(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: ConfirmStreamSchema) => confirmStreamSchema(team, v),
    // the table is now declared: its detail, samples, the tree and completion read the new schema
    onSuccess: () => invalidateCatalogs(qc, team),
  });
}
