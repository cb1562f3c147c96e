import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { RunStatements } from "@/features/runs/components/RunStatements";
import type { Run, RunStatement } from "@/features/runs/types";

type RunBody = Pick<Run, "id" | "status" | "error" | "statements">;

// a statement as runs/{id}/ lists it; the fields these tests do not look at are left empty
const statement = (s: Pick<RunStatement, "index" | "sql" | "status" | "line" | "column"> & Partial<RunStatement>): RunStatement => ({
  started_at: null, elapsed_ms: null, rows: null, truncated: false, start: null, end: null, error: null, ...s,
});

const failedRun = (withSpans: boolean): RunBody => ({
  id: 3,
  status: "FAILED",
  error: { statement: 1, line: 2, column: 8, message: "cannot resolve nope" },
  statements: [
    statement({ index: 0, sql: "SELECT 1", status: "succeeded", line: 1, column: 1, ...(withSpans ? { start: 0, end: 8 } : {}) }),
    withSpans
      ? statement({ index: 1, sql: "SELECT nope FROM t", status: "failed", line: 2, column: 1, start: 10, end: 28 })
      : statement({ index: 1, sql: "SELECT nope FROM t", status: "failed", line: 2, column: 8 }), // its error's position
  ],
});

describe("RunStatements", () => {
  it("marks the error's place inside the failing statement", () => {
    const html = renderToStaticMarkup(<RunStatements run={failedRun(true)} />);
    expect(html).toContain('<mark class="error-at">nope FROM t</mark>');
    expect(html).toContain("Statement 2 (failed)");
  });

  it("marks the right character after an emoji in the statement (columns count characters)", () => {
    const run: RunBody = {
      id: 5,
      status: "FAILED",
      error: { statement: 0, line: 1, column: 13, message: "cannot resolve bad" },
      statements: [statement({ index: 0, sql: "SELECT '😀', bad FROM t", status: "failed", line: 1, column: 1, start: 0, end: 23 })],
    };
    expect(renderToStaticMarkup(<RunStatements run={run} />)).toContain('<mark class="error-at">bad FROM t</mark>');
  });

  it("renders a run recorded before spans: the failing statement outlined, nothing marked", () => {
    const html = renderToStaticMarkup(<RunStatements run={failedRun(false)} />);
    expect(html).toContain("Statement 2 (failed)");
    expect(html).toContain("SELECT nope FROM t");
    expect(html).not.toContain("error-at");
  });

  it("renders nothing for a run without statements yet", () => {
    expect(renderToStaticMarkup(<RunStatements run={{ status: "QUEUED", error: null, statements: [] }} />)).toBe("");
  });
});
