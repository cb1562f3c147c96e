import { describe, expect, it } from "vitest";

import type { Run, RunStatement } from "@/features/runs/types";
import { errorInStatement, statementRows } from "@/features/runs/utils/statement-rows";

type RunBody = Pick<Run, "id" | "status" | "error" | "statements">;

// a statement as runs/{id}/ lists it; the fields these tests do not look at are left empty
const statement = (s: Pick<RunStatement, "index" | "sql" | "status" | "line" | "column"> & Partial<RunStatement>): RunStatement => ({
  started_at: null, elapsed_ms: null, rows: null, truncated: false, start: null, end: null, error: null, ...s,
});

// runs/{id}/ of a run of "SELECT '😀' AS smile; SELECT bad\n  FROM t;\nSELECT 3" that failed in its second statement
const run: RunBody = {
  id: 7,
  status: "FAILED",
  error: { statement: 1, line: 1, column: 29, message: "cannot resolve bad" },
  statements: [
    statement({ index: 0, sql: "SELECT '😀' AS smile", status: "succeeded", line: 1, column: 1, start: 0, end: 20 }),
    statement({ index: 1, sql: "SELECT bad\n  FROM t", status: "failed", line: 1, column: 22, start: 22, end: 41 }),
    statement({ index: 2, sql: "SELECT 3", status: "skipped", line: 3, column: 1, start: 43, end: 51 }),
  ],
};

describe("statementRows", () => {
  it("takes each statement's text and first line from the API", () => {
    expect(statementRows(run).map((r) => [r.sql, r.line, r.column])).toEqual([
      ["SELECT '😀' AS smile", 1, 1],
      ["SELECT bad\n  FROM t", 1, 22],
      ["SELECT 3", 3, 1],
    ]);
  });

  it("does not trust the lines of a run recorded before spans (a failed one's line was its error's)", () => {
    const old: RunBody = { ...run, statements: run.statements.map((s) => ({ ...s, start: null, end: null })) };
    expect(statementRows(old).map((r) => r.line)).toEqual([null, null, null]);
    expect(errorInStatement(old.error, statementRows(old)[1])).toBeNull();
  });
});

describe("errorInStatement", () => {
  it("moves a script-absolute position into the statement's text, columns from where the statement starts", () => {
    expect(errorInStatement(run.error, statementRows(run)[1])).toEqual({ line: 1, column: 8 });
    expect(errorInStatement({ ...run.error!, line: 2, column: 3 }, statementRows(run)[1])).toEqual({ line: 2, column: 3 });
  });

  it("places nothing for an error before the statement or without a line", () => {
    expect(errorInStatement({ ...run.error!, line: null }, statementRows(run)[1])).toBeNull();
    expect(errorInStatement(run.error, statementRows(run)[2])).toBeNull();
  });
});
