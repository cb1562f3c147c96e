import { useMutation } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import type { PreviewResult } from "@/features/sql-editor/types";

export const PREVIEW_LIMIT = 1000;

/** `job`: the saved job the editor has open; its `${name}` parameters render with their defaults. */
export function previewSql(team: string, sql: string, job: number | null = null): Promise<PreviewResult> {
  return apiPost<PreviewResult>(`teams/${encodeURIComponent(team)}/sql/preview/`, { sql, limit: PREVIEW_LIMIT, job });
}

export function usePreviewSql(team: string) {
  return useMutation({
    mutationFn: ({ sql, job = null }: { sql: string; job?: number | null }) => previewSql(team, sql, job),
  });
}
