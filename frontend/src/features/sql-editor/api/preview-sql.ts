import { useMutation } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import type { PreviewResult } from "@/features/sql-editor/types";

export const PREVIEW_LIMIT = 1000;

export function previewSql(team: string, sql: string): Promise<PreviewResult> {
  return apiPost<PreviewResult>(`teams/${encodeURIComponent(team)}/sql/preview/`, { sql, limit: PREVIEW_LIMIT });
}

export function usePreviewSql(team: string) {
  return useMutation({
    mutationFn: ({ sql }: { sql: string }) => previewSql(team, sql),
  });
}
