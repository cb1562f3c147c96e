import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import type { ValidationResult } from "@/features/sql-editor/types";

export function validateSql(team: string, sql: string): Promise<ValidationResult> {
  return apiPost<ValidationResult>(`teams/${encodeURIComponent(team)}/sql/validate/`, { sql });
}

/** Validation of the (already debounced) script; nothing is sent for an empty editor or a viewer. */
export function useValidateSql(team: string, sql: string, enabled: boolean) {
  return useQuery({
    queryKey: ["sql-validate", team, sql],
    queryFn: () => validateSql(team, sql),
    enabled: enabled && sql.trim().length > 0,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    retry: false,
  });
}
