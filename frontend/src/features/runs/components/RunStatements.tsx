import { RunStatusBadge } from "@/features/runs/components/RunStatusBadge";
import type { Run, RunError } from "@/features/runs/types";
import { formatDuration } from "@/lib/format";
import { statementRanges } from "@/lib/sql-statements";

type Row = { sql: string; status?: string; elapsed?: number | null; rows?: number | null; error?: string | RunError | null };

function rowsOf(run: Run): Row[] {
  if (run.statements && run.statements.length > 0) {
    return run.statements.map((s) => ({ sql: s.sql ?? s.text ?? "", status: s.status, elapsed: s.elapsed_ms, rows: s.rows, error: s.error }));
  }
  const script = run.sql ?? "";
  return statementRanges(script).map(([a, b]) => ({ sql: script.slice(a, b).trim() }));
}

/** Marks line/column of the error inside the failing statement's text. */
function Highlighted({ sql, err }: { sql: string; err: RunError }) {
  const lines = sql.split("\n");
  if (!err.line || err.line < 1 || err.line > lines.length) return <>{sql}</>;
  return (
    <>
      {lines.map((l, i) => (
        <span key={i} className={i + 1 === err.line ? "error-line" : undefined}>
          {i + 1 === err.line && err.column ? (
            <>
              {l.slice(0, err.column - 1)}
              <mark className="error-at">{l.slice(err.column - 1) || " "}</mark>
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
export function RunStatements({ run }: { run: Run }) {
  const rows = rowsOf(run);
  if (rows.length === 0) return null;
  const failing = typeof run.error?.statement === "number" ? run.error.statement : rows.findIndex((r) => r.status === "FAILED");
  return (
    <section className="card" aria-labelledby="statements-title">
      <h2 id="statements-title">Statements</h2>
      <ol className="statements" data-testid="run-statements">
        {rows.map((s, i) => {
          const isFailing = i === failing && (run.status === "FAILED" || s.status === "FAILED");
          return (
            <li key={i} className={isFailing ? "failing" : undefined} data-failing={isFailing || undefined} aria-label={isFailing ? `Statement ${i + 1} (failed)` : `Statement ${i + 1}`}>
              <div className="statement-head">
                <span className="muted">#{i + 1}</span>
                {s.status && <RunStatusBadge status={s.status} />}
                {s.elapsed !== undefined && s.elapsed !== null && <span className="muted">{formatDuration(s.elapsed)}</span>}
                {s.rows !== undefined && s.rows !== null && <span className="muted">{s.rows} rows</span>}
              </div>
              <pre className="statement-sql">{isFailing && run.error ? <Highlighted sql={s.sql} err={run.error} /> : s.sql}</pre>
              {isFailing && run.error && <p className="error-text">{run.error.message}</p>}
              {!isFailing && typeof s.error === "string" && s.error && <p className="error-text">{s.error}</p>}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
