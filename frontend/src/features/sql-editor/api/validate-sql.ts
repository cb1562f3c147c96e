import { keepPreviousData, useQuery } from "@tanstack/react-query";

import { ApiError, apiPost } from "@/lib/api-client";
import type { ValidationResult } from "@/features/sql-editor/types";

/** `job`: the saved job the editor has open, whose `${name}` parameters (declarations, defaults) the script uses;
 * `defaultCatalog`: where unqualified names resolve, as in a run of the job ("" for none). While the team's engine
 * starts, the server answers from Spark's parser alone (`checked: "syntax"`) instead of making the editor wait. */
export function validateSql(team: string, sql: string, job: number | null = null, defaultCatalog = ""): Promise<ValidationResult> {
  return apiPost<ValidationResult>(`teams/${encodeURIComponent(team)}/sql/validate/`, {
    sql, job, default_catalog: defaultCatalog, syntax_while_starting: true,
  });
}

/** A syntax-only answer is asked again every 2 s until the engine gives the full check. */
export function refetchWhileSyntaxOnly(result: ValidationResult | undefined): number | false {
  return result?.checked === "syntax" ? 2000 : false;
}

/** A 503 means "not now" (the team's engine is starting, or the team's editor calls are at their limit): validation
 * runs in the background, so it asks again a little later instead of showing an error that stays. */
export function retryWhileUnavailable(failures: number, error: unknown): boolean {
  return error instanceof ApiError && error.status === 503 && failures < 30;
}

/** Validation of the (already debounced) script; nothing is sent for an empty editor or a viewer. */
export function useValidateSql(team: string, sql: string, enabled: boolean, job: number | null = null, defaultCatalog = "") {
  return useQuery({
    queryKey: ["sql-validate", team, sql, job, defaultCatalog],
    queryFn: () => validateSql(team, sql, job, defaultCatalog),
    enabled: enabled && sql.trim().length > 0,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
    refetchInterval: (query) => refetchWhileSyntaxOnly(query.state.data),
    retry: retryWhileUnavailable,
    retryDelay: (attempt) => Math.min(500 * 2 ** attempt, 4000),
  });
}
