import type { Run, RunError } from "@/features/runs/types";

export type StatementRow = {
  sql: string;
  status?: string;
  elapsed?: number | null;
  rows?: number | null;
  error?: string | RunError | null;
  /** Where the statement starts in the run's script (1-based), when the run recorded it. */
  line: number | null;
  column: number | null;
};

/** The run's statements as the API lists them (the browser never splits a script itself). */
export function statementRows(run: Pick<Run, "statements">): StatementRow[] {
  return run.statements.map((s) => {
    // a run recorded before API 1.2.0 has no `start`, and its failed statement's `line` was where it failed
    const placed = typeof s.start === "number" && typeof s.line === "number";
    return {
      sql: s.sql,
      status: s.status,
      elapsed: s.elapsed_ms,
      rows: s.rows,
      error: s.error,
      line: placed ? s.line! : null,
      column: placed ? (s.column ?? 1) : null,
    };
  });
}

/** The run error's line and column inside the failing statement's text (1-based), or null when they cannot be placed. */
export function errorInStatement(error: RunError | null | undefined, row: StatementRow | undefined): { line: number; column: number | null } | null {
  if (!error?.line || !row?.line) return null;
  const line = error.line - row.line + 1;
  if (line < 1) return null;
  // the error's column counts from the script's line start; the statement's text may start further right
  const column = error.column ? (line === 1 ? error.column - (row.column ?? 1) + 1 : error.column) : null;
  return { line, column: column && column >= 1 ? column : null };
}
