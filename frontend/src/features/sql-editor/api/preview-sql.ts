import { useMutation } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import type { PreviewResult } from "@/features/sql-editor/types";

export const PREVIEW_LIMIT = 1000;

/** `job`: the saved job the editor has open; its `${name}` parameters render with their defaults.
 * `defaultCatalog`: where unqualified names resolve, as in a run of the job ("" for none). */
/** `consistent`: read the Delta tables at one consistent cut of their materialized view pipeline. */
export function previewSql(team: string, sql: string, job: number | null = null, defaultCatalog = "", consistent = false): Promise<PreviewResult> {
  return apiPost<PreviewResult>(`teams/${encodeURIComponent(team)}/sql/preview/`, {
    sql, limit: PREVIEW_LIMIT, job, default_catalog: defaultCatalog, ...(consistent ? { snapshot: { consistent: true } } : {}),
  });
}

export function usePreviewSql(team: string) {
  return useMutation({
    mutationFn: ({ sql, job = null, defaultCatalog = "", consistent = false }: { sql: string; job?: number | null; defaultCatalog?: string; consistent?: boolean }) =>
      previewSql(team, sql, job, defaultCatalog, consistent),
  });
}
