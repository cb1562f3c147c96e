import { describe, expect, it } from "vitest";

import { toDiagnostics } from "@/features/sql-editor/hooks/diagnostics";

describe("toDiagnostics", () => {
  const sql = "SELECT 1;\nSELECT nope FROM c.d.t";

  it("marks the word at a script-absolute line and column", () => {
    const [d] = toDiagnostics(sql, [{ statement: 1, line: 2, column: 8, message: "cannot resolve nope" }]);
    expect(sql.slice(d.from, d.to)).toBe("nope");
    expect(d).toMatchObject({ severity: "error", message: "cannot resolve nope" });
  });

  it("marks the whole statement when only its index is known", () => {
    const [d] = toDiagnostics(sql, [{ statement: 1, line: null, column: null, message: "unknown catalog c" }]);
    expect(sql.slice(d.from, d.to)).toBe("SELECT nope FROM c.d.t");
  });
});
