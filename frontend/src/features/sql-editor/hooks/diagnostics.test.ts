import { describe, expect, it } from "vitest";

import { toDiagnostics } from "@/features/sql-editor/hooks/diagnostics";
import type { StatementSpan } from "@/features/sql-editor/types";

describe("toDiagnostics", () => {
  const sql = "SELECT 1;\nSELECT nope FROM c.d.t";
  // sql/validate/'s `statements` for `sql`
  const spans: StatementSpan[] = [
    { index: 0, start: 0, end: 8, line: 1 },
    { index: 1, start: 10, end: 32, line: 2 },
  ];

  it("marks the word at a script-absolute line and column", () => {
    const [d] = toDiagnostics(sql, [{ statement: 1, line: 2, column: 8, message: "cannot resolve nope" }], spans);
    expect(sql.slice(d.from, d.to)).toBe("nope");
    expect(d).toMatchObject({ severity: "error", message: "cannot resolve nope" });
  });

  it("marks the whole statement when only its index is known", () => {
    const [d] = toDiagnostics(sql, [{ statement: 1, line: null, column: null, message: "unknown catalog c" }], spans);
    expect(sql.slice(d.from, d.to)).toBe("SELECT nope FROM c.d.t");
  });

  // An emoji (one character, two string units) and `;` in a string and a block comment before the failing statement:
  // the spans and the column are the server's answer for this text (tests/jobs/test_statement_spans.py).
  const script = "SELECT '😀;' AS smile; /* ; */ SELECT nope FROM range(3);\n-- x;\nSELECT `prénom` FROM t";
  const scriptSpans: StatementSpan[] = [
    { index: 0, start: 0, end: 21, line: 1 },
    { index: 1, start: 31, end: 56, line: 1 },
    { index: 2, start: 64, end: 86, line: 3 },
  ];

  it("marks the statement the server names, whatever its comments and strings hold", () => {
    const [d] = toDiagnostics(script, [{ statement: 1, line: null, column: null, message: "nope" }], scriptSpans);
    expect(script.slice(d.from, d.to)).toBe("SELECT nope FROM range(3)");
  });

  it("places a column after an emoji on its character, not one string unit early", () => {
    const [d] = toDiagnostics(script, [{ statement: 1, line: 1, column: 31, message: "nope" }], scriptSpans);
    expect(d.from).toBe(31);
    expect(script.slice(d.from, d.to)).toBe("SELECT");
  });

  it("marks a non-ASCII name whole", () => {
    const [d] = toDiagnostics(script, [{ statement: 2, line: 3, column: 8, message: "unknown" }], scriptSpans);
    expect(script.slice(d.from, d.to)).toBe("`prénom`");
  });
});
