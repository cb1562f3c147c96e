import { useMutation } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import type { PreviewResult } from "@/features/sql-editor/types";

export const PREVIEW_LIMIT = 1000;

export function previewSql(team: string, sql: string, defaultCatalog: string): Promise<PreviewResult> {
  return apiPost<PreviewResult>(`teams/${encodeURIComponent(team)}/sql/preview/`, {
    sql,
    limit: PREVIEW_LIMIT,
    ...(defaultCatalog ? { default_catalog: defaultCatalog } : {}),
  });
}

export function usePreviewSql(team: string) {
  return useMutation({
    mutationFn: ({ sql, defaultCatalog }: { sql: string; defaultCatalog: string }) => previewSql(team, sql, defaultCatalog),
  });
}
