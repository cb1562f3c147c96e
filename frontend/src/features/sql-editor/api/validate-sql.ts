import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import type { ValidationResult } from "@/features/sql-editor/types";

export function validateSql(team: string, sql: string, defaultCatalog: string): Promise<ValidationResult> {
  return apiPost<ValidationResult>(`teams/${encodeURIComponent(team)}/sql/validate/`, {
    sql,
    ...(defaultCatalog ? { default_catalog: defaultCatalog } : {}),
  });
}

/** Validation of the (already debounced) script; nothing is sent for an empty editor. */
export function useValidateSql(team: string, sql: string, defaultCatalog: string) {
  return useQuery({
    queryKey: ["sql-validate", team, defaultCatalog, sql],
    queryFn: () => validateSql(team, sql, defaultCatalog),
    enabled: sql.trim().length > 0,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    retry: false,
  });
}
