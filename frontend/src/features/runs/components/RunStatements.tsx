import { useJobSql } from "@/features/runs/api/get-job-sql";
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

const squash = (s: string) => s.replace(/\s+/g, " ").trim();

/**
 * First script line of statement `index`, when the job's current script still holds that statement's text
 * (errors carry script-absolute lines; the run stores each statement's text only).
 */
function statementFirstLine(script: string | undefined, index: number, text: string): number | null {
  if (!script) return null;
  const range = statementRanges(script)[index];
  if (!range) return null;
  const body = script.slice(range[0], range[1]);
  if (squash(body) !== squash(text)) return null;
  const lead = body.length - body.trimStart().length;
  return script.slice(0, range[0] + lead).split("\n").length;
}

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
export function RunStatements({ run, team }: { run: Run; team: string }) {
  const rows = rowsOf(run);
  const failed = (st?: string) => st?.toUpperCase() === "FAILED";
  const failing = typeof run.error?.statement === "number" ? run.error.statement : rows.findIndex((r) => failed(r.status));
  const jobId = typeof run.job === "number" ? run.job : (run.job_id ?? undefined);
  const needsScript = run.status === "FAILED" && !!run.error?.line && failing >= 0;
  const script = useJobSql(team, jobId, needsScript);
  if (rows.length === 0) return null;
  const first = failing >= 0 && rows[failing] ? statementFirstLine(script.data, failing, rows[failing].sql) : null;
  const relLine = run.error?.line && first ? run.error.line - first + 1 : null;
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
              <pre className="statement-sql">{isFailing && run.error ? <Highlighted sql={s.sql} line={relLine} column={run.error.column ?? null} /> : s.sql}</pre>
              {isFailing && run.error && <p className="error-text">{run.error.message}</p>}
              {!isFailing && typeof s.error === "string" && s.error && <p className="error-text">{s.error}</p>}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
