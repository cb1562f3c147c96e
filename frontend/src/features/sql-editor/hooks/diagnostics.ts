import type { Diagnostic } from "@codemirror/lint";

import type { SqlError } from "@/features/sql-editor/types";
import { statementRanges } from "@/lib/sql-statements";

/** Editor markers for the validator's errors: at line/column when given, else over the failing statement. */
export function toDiagnostics(doc: string, errors: SqlError[]): Diagnostic[] {
  const lines = doc.split("\n");
  const lineStart = (n: number) => lines.slice(0, n - 1).reduce((acc, l) => acc + l.length + 1, 0);
  const statements = statementRanges(doc);
  return errors.map((e) => {
    const stmt = typeof e.statement === "number" ? statements[e.statement] ?? statements[e.statement - 1] : undefined;
    if (e.line && e.line >= 1 && e.line <= lines.length) {
      const from = lineStart(e.line) + Math.max(0, (e.column ?? 1) - 1);
      const rest = doc.slice(from).match(/^[\w`.]+/);
      return { from, to: from + (rest ? rest[0].length : Math.max(1, lines[e.line - 1].length - ((e.column ?? 1) - 1))), severity: "error", message: e.message };
    }
    if (stmt) {
      const text = doc.slice(stmt[0], stmt[1]);
      const lead = text.length - text.trimStart().length;
      return { from: stmt[0] + lead, to: stmt[1], severity: "error", message: e.message };
    }
    return { from: 0, to: Math.min(doc.length, lines[0]?.length ?? 0), severity: "error", message: e.message };
  });
}
