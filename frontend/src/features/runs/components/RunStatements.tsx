import { RunStatusBadge } from "@/features/runs/components/RunStatusBadge";
import type { Run } from "@/features/runs/types";
import { errorInStatement, statementRows } from "@/features/runs/utils/statement-rows";
import { formatDuration } from "@/lib/format";
import { columnIndex } from "@/lib/sql-positions";

/** Marks line/column of the error inside the failing statement's text (`line` relative to the statement). */
function Highlighted({ sql, line, column }: { sql: string; line: number | null; column: number | null }) {
  const lines = sql.split("\n");
  const err = { line, column };
  if (!err.line || err.line < 1 || err.line > lines.length) return <>{sql}</>;
  return (
    <>
      {lines.map((l, i) => (
        <span key={i} className={i + 1 === err.line ? "error-line" : undefined}>
          {i + 1 === err.line && err.column ? (
            <>
              {l.slice(0, columnIndex(l, err.column))}
              <mark className="error-at">{l.slice(columnIndex(l, err.column)) || " "}</mark>
            </>
          ) : (
            l
          )}
          {i < lines.length - 1 ? "\n" : ""}
        </span>
      ))}
    </>
  );
}

/** The run's statements with their status; the failing one is highlighted with the error's position. */
export function RunStatements({ run }: { run: Pick<Run, "status" | "error" | "statements"> }) {
  const rows = statementRows(run);
  if (rows.length === 0) return null;
  const failed = (st?: string) => st?.toUpperCase() === "FAILED";
  const failing = typeof run.error?.statement === "number" ? run.error.statement : rows.findIndex((r) => failed(r.status));
  const at = failing >= 0 ? errorInStatement(run.error, rows[failing]) : null;
  return (
    <section className="card" aria-labelledby="statements-title">
      <h2 id="statements-title">Statements</h2>
      <ol className="statements" data-testid="run-statements">
        {rows.map((s, i) => {
          const isFailing = i === failing && (run.status === "FAILED" || failed(s.status));
          return (
            <li key={i} className={isFailing ? "failing" : undefined} data-failing={isFailing || undefined} aria-label={isFailing ? `Statement ${i + 1} (failed)` : `Statement ${i + 1}`}>
              <div className="statement-head">
                <span className="muted">#{i + 1}</span>
                {s.status && <RunStatusBadge status={s.status} />}
                {s.elapsed !== undefined && s.elapsed !== null && <span className="muted">{formatDuration(s.elapsed)}</span>}
                {s.rows !== undefined && s.rows !== null && <span className="muted">{s.rows} rows</span>}
              </div>
              <pre className="statement-sql">{isFailing && run.error ? <Highlighted sql={s.sql} line={at?.line ?? null} column={at?.column ?? null} /> : s.sql}</pre>
              {isFailing && run.error && <p className="error-text">{run.error.message}</p>}
              {!isFailing && typeof s.error === "string" && s.error && <p className="error-text">{s.error}</p>}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
