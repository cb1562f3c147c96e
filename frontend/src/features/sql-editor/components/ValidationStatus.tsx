import type { ValidationResult } from "@/features/sql-editor/types";
import { ApiError } from "@/lib/api-client";

type Props = { empty: boolean; checking: boolean; error: unknown; result: ValidationResult | undefined };

/** The line under the editor: a hint, "Checking…", ✓ Valid, or the number of problems and the first one. */
export function ValidationStatus({ empty, checking, error, result: v }: Props) {
  return (
    <div className="editor-status" aria-live="polite" data-testid="validation-status">
      {empty ? (
        <span className="muted">Type Spark SQL. Ctrl+Space completes names; Ctrl+Enter previews.</span>
      ) : checking ? (
        <span className="muted">Checking…</span>
      ) : error ? (
        <span className="error-text">Validation unavailable: {error instanceof ApiError ? error.message : "error"}</span>
      ) : v?.valid && v.checked === "syntax" ? (
        <span className="muted">✓ Syntax valid; names are checked once the team's engine is up…</span>
      ) : v?.valid ? (
        <span className="ok-text">✓ Valid</span>
      ) : v ? (
        <span className="error-text">
          ✗ {v.errors.length} problem{v.errors.length === 1 ? "" : "s"}: {v.errors[0]?.message}
        </span>
      ) : null}
    </div>
  );
}
