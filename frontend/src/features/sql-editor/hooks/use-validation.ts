import { useMemo } from "react";

import { useValidateSql } from "@/features/sql-editor/api/validate-sql";
import { toDiagnostics } from "@/features/sql-editor/hooks/diagnostics";
import { useDebounced } from "@/hooks/use-debounced";

/**
 * Validation as you type: the script is sent 400 ms after typing stops (never for a viewer or an empty editor);
 * `diagnostics` are the editor's markers, `checking` is true while the shown answer is not for the current text.
 */
export function useValidation(team: string, sqlText: string, enabled: boolean, jobId: number | null, defaultCatalog: string) {
  const debouncedSql = useDebounced(sqlText, 400);
  const validation = useValidateSql(team, debouncedSql, enabled, jobId, defaultCatalog);

  const diagnostics = useMemo(() => {
    // markers only for the text they were computed on (not an earlier text's answer kept while this one is
    // validated), so they never point at shifted positions
    if (!validation.data || validation.isPlaceholderData || debouncedSql !== sqlText) return [];
    return toDiagnostics(sqlText, validation.data.errors ?? [], validation.data.statements ?? []);
  }, [validation.data, validation.isPlaceholderData, debouncedSql, sqlText]);

  const checking = validation.isFetching || debouncedSql !== sqlText;
  return { validation, diagnostics, checking };
}
