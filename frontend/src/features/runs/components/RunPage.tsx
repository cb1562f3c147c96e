import { useState } from "react";
import { Link, useParams } from "react-router";

import { ConfirmDialog } from "@/components/ConfirmDialog";
import { ResultView } from "@/components/ResultView";
import { ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useCancelRun } from "@/features/runs/api/cancel-run";
import { useRun } from "@/features/runs/api/get-run";
import { useRunResult } from "@/features/runs/api/get-run-result";
import { RunLineage } from "@/features/runs/components/RunLineage";
import { RunLog } from "@/features/runs/components/RunLog";
import { RunStatements } from "@/features/runs/components/RunStatements";
import { RunStatusBadge } from "@/features/runs/components/RunStatusBadge";
import { isTerminal, type RunProgress } from "@/features/runs/types";
import { useTeam } from "@/hooks/use-team";
import { ApiError } from "@/lib/api-client";
import { durationBetween, formatDateTime, formatDuration } from "@/lib/format";

function Bar({ label, done, total }: { label: string; done?: number; total?: number }) {
  const d = done ?? 0;
  const t = total ?? 0;
  return (
    <div className="progress-row">
      <span className="progress-label">{label}</span>
      <progress max={Math.max(t, 1)} value={t ? d : 0} aria-label={`${label}: ${d} of ${t}`} />
      <span className="progress-count">
        {d} / {t}
      </span>
    </div>
  );
}

function Progress({ p }: { p: RunProgress }) {
  return (
    <div className="progress" data-testid="run-progress">
      <Bar label="Statements" done={p.statements_done} total={p.statements_total} />
      <Bar label="Stages" done={p.stages_done} total={p.stages_total} />
      <Bar label="Tasks" done={p.tasks_done} total={p.tasks_total} />
    </div>
  );
}

/** One run: live progress, statements, incremental log, error with the failing statement, result and chart. */
export function RunPage() {
  const { runId = "" } = useParams();
  const { team, canRunSql } = useTeam();
  const q = useRun(team, runId);
  const cancel = useCancelRun(team);
  const [confirm, setConfirm] = useState(false);
  const status = q.data?.status;
  const done = isTerminal(status);
  const result = useRunResult(team, runId, status === "SUCCEEDED" && q.data?.has_result !== false);
  const base = `/t/${encodeURIComponent(team)}`;

  if (q.isPending) return <Loading label="Loading run…" />;
  if (q.error) return <ErrorBox error={q.error} title={`Could not load run #${runId}`} onRetry={() => q.refetch()} />;
  const r = q.data;

  return (
    <>
      <PageHeader
        title={
          <>
            Run #{r.id}{" "}
            <span data-testid="run-status">
              <RunStatusBadge status={r.status} />
            </span>
          </>
        }
      >
        <Link className="btn" to={`${base}/sql?job=${r.job}`}>
          Open in editor
        </Link>
        {canRunSql && !done && (
          <button type="button" className="btn danger" onClick={() => setConfirm(true)} disabled={cancel.isPending || r.cancel_requested}>
            {r.cancel_requested ? "Cancelling…" : "Cancel run"}
          </button>
        )}
      </PageHeader>
      {cancel.error && <ErrorBox error={cancel.error} title="Could not cancel" />}
      <section className="card">
        <dl className="props">
          <dt>Job</dt>
          <dd>{r.job_name}</dd>
          <dt>Run by</dt>
          <dd>{r.submitted_by ?? "—"}</dd>
          <dt>Submitted</dt>
          <dd>{formatDateTime(r.created_at)}</dd>
          <dt>Duration</dt>
          <dd data-testid="run-duration">{formatDuration(durationBetween(r.started_at, r.finished_at))}</dd>
          {r.engine_used && (
            <>
              <dt>Engine</dt>
              <dd>{r.engine_used}</dd>
            </>
          )}
          {r.spark_ui_url && (
            <>
              <dt>Spark UI</dt>
              <dd>
                <a href={r.spark_ui_url} target="_blank" rel="noreferrer" data-testid="run-spark-ui">
                  Open the Spark UI
                </a>
              </dd>
            </>
          )}
          {r.catalogs.length > 0 && (
            <>
              <dt>Catalogs</dt>
              <dd className="mono">{r.catalogs.join(", ")}</dd>
            </>
          )}
          {Object.keys(r.parameters).length > 0 && (
            <>
              <dt>Parameters</dt>
              <dd className="mono" data-testid="run-parameters">
                {Object.entries(r.parameters)
                  .map(([name, p]) => `${name} = ${p.value} (${p.type})`)
                  .join(", ")}
              </dd>
            </>
          )}
        </dl>
        <Progress p={r.progress} />
      </section>
      <RunLineage team={team} runId={r.id} finished={done} />
      {r.error && (
        <section className="card error-card" aria-labelledby="run-error-title" data-testid="run-error">
          <h2 id="run-error-title">Error</h2>
          <p className="error-text">
            {typeof r.error.statement === "number" && <>Statement {r.error.statement + 1}: </>}
            {r.error.line ? `line ${r.error.line}${r.error.column ? `, column ${r.error.column}` : ""}: ` : ""}
            {r.error.message}
          </p>
        </section>
      )}
      <RunStatements run={r} />
      {status === "SUCCEEDED" && (
        <section className="card" aria-labelledby="result-title">
          <h2 id="result-title">Result</h2>
          {result.isPending ? (
            <Loading label="Loading rows…" />
          ) : result.error ? (
            result.error instanceof ApiError && result.error.status === 404 ? (
              <p className="muted">This run returned no rows (its last statement was not a query).</p>
            ) : (
              <ErrorBox error={result.error} title="Could not load the result" onRetry={() => result.refetch()} />
            )
          ) : result.data && result.data.columns.length ? (
            <ResultView result={result.data} caption={`Rows of run ${r.id}`} />
          ) : (
            <p className="muted">This run returned no rows.</p>
          )}
        </section>
      )}
      <RunLog team={team} runId={runId} live={!done} />
      <ConfirmDialog
        open={confirm}
        title={`Cancel run #${r.id}?`}
        message="Spark stops the running statement; statements already finished are not undone."
        confirmLabel="Cancel run"
        busy={cancel.isPending}
        onCancel={() => setConfirm(false)}
        onConfirm={() => cancel.mutate(runId, { onSettled: () => setConfirm(false) })}
      />
    </>
  );
}
