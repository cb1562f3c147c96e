import type { Diagnostic } from "@codemirror/lint";

import type { SqlError, StatementSpan } from "@/features/sql-editor/types";
import { columnIndex } from "@/lib/sql-positions";

/**
 * Editor markers for the validator's errors on `doc`, the text it validated: at line/column when given, else over
 * the failing statement as the validator split it (`statements`: offsets in string units, as the editor counts).
 */
export function toDiagnostics(doc: string, errors: SqlError[], statements: StatementSpan[]): Diagnostic[] {
  const lines = doc.split("\n");
  const lineStart = (n: number) => lines.slice(0, n - 1).reduce((acc, l) => acc + l.length + 1, 0);
  return errors.map((e) => {
    if (e.line && e.line >= 1 && e.line <= lines.length) {
      const text = lines[e.line - 1];
      const at = columnIndex(text, e.column ?? 1);
      const from = lineStart(e.line) + at;
      const rest = doc.slice(from).match(/^[\p{L}\p{N}_$`.]+/u);
      return { from, to: from + (rest ? rest[0].length : Math.max(1, text.length - at)), severity: "error", message: e.message };
    }
    const stmt = statements.find((s) => s.index === e.statement);
    if (stmt) return { from: stmt.start, to: stmt.end, severity: "error", message: e.message };
    return { from: 0, to: Math.min(doc.length, lines[0]?.length ?? 0), severity: "error", message: e.message };
  });
}
