import { useState } from "react";

import { ConfirmDialog } from "@/components/ConfirmDialog";
import { ErrorBox, Loading } from "@/components/Status";
import { useStreamState } from "@/features/streams/api/get-stream-state";
import { useStreamAction } from "@/features/streams/api/stream-action";
import { useStreamAudit } from "@/features/streams/api/get-stream-audit";
import { StreamMetricsCharts } from "@/features/streams/components/StreamMetricsCharts";
import { StreamStatusBadge } from "@/features/streams/components/StreamStatusBadge";
import type { StreamAction, StreamState } from "@/features/streams/types";
import { formatBytes, formatLag, formatNumber, formatRate, formatWatermark } from "@/features/streams/utils/metric-format";
import { allowedActions, canOperate, isActive } from "@/features/streams/utils/stream-actions";
import { useTeam } from "@/hooks/use-team";
import { formatDateTime, formatDuration } from "@/lib/format";
import "@/features/streams/components/streams.css";

const LABEL: Record<StreamAction, string> = { start: "Start", stop: "Stop", restart: "Restart", reset: "Reset…" };

/** The current watermark, lag, throughput and state size of the last batch, and whether the job falls behind. */
function AtAGlance({ state }: { state: StreamState }) {
  const m = state.latest;
  return (
    <dl className="stream-glance" aria-label="At a glance">
      <div>
        <dt>Watermark</dt>
        <dd data-testid="stream-watermark">{m ? formatWatermark(m.watermark) : "—"}</dd>
      </div>
      <div>
        <dt>Lag</dt>
        <dd data-testid="stream-lag">
          {m ? formatLag(m.lag) : "—"}{" "}
          {state.falling_behind ? (
            <span className="stream-behind" data-testid="stream-falling-behind" title="The sources' lag grew over the last batches">
              ⚠ Falling behind
            </span>
          ) : m && m.lag !== null ? (
            <span className="stream-ok" data-testid="stream-keeping-up">keeping up</span>
          ) : null}
        </dd>
      </div>
      <div>
        <dt>Rows/s in → out</dt>
        <dd data-testid="stream-throughput">
          {m ? `${formatRate(m.input_rows_per_second)} → ${formatRate(m.output_rows_per_second)}` : "—"}
        </dd>
      </div>
      <div>
        <dt>Last batch</dt>
        <dd data-testid="stream-last-batch">
          {m ? `#${m.batch_id} · ${formatNumber(m.input_rows)} rows in ${formatDuration(m.duration_ms)} · ${formatDateTime(m.ts)}` : "none yet"}
        </dd>
      </div>
      <div>
        <dt>State</dt>
        <dd data-testid="stream-state-size">
          {!m ? "—" : m.state_rows === null && m.state_memory_bytes === null ? "none (stateless query)"
            : `${formatNumber(m.state_rows)} rows · ${formatBytes(m.state_memory_bytes)}`}
        </dd>
      </div>
    </dl>
  );
}

const DID: Record<string, string> = { start: "started", stop: "stopped", restart: "restarted", reset: "reset" };

/** Who started, stopped, restarted or reset the stream, newest first (the API's audit trail). */
function StreamHistory({ team, jobId }: { team: string; jobId: number | string }) {
  const audit = useStreamAudit(team, jobId);
  return (
    <details className="card" data-testid="stream-history">
      <summary>
        <h2 style={{ display: "inline", fontSize: "1rem" }}>History</h2>{" "}
        {audit.data && <span className="muted">({audit.data.count} action{audit.data.count === 1 ? "" : "s"})</span>}
      </summary>
      {audit.isPending ? <Loading label="Loading history…" />
        : audit.error ? <ErrorBox error={audit.error} title="Stream history" onRetry={() => audit.refetch()} />
        : audit.data.results.length === 0 ? <p className="muted">Nobody has acted on this stream yet.</p>
        : (
          <table className="table" aria-label="Stream history">
            <thead><tr><th>When</th><th>Action</th><th>By</th><th>Details</th></tr></thead>
            <tbody>
              {audit.data.results.map((e, i) => (
                <tr key={`${e.at}-${i}`}>
                  <td>{formatDateTime(e.at)}</td>
                  <td>{DID[e.action] ?? e.action}</td>
                  <td>{e.actor}</td>
                  <td className="muted">{describe(e.details)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
    </details>
  );
}

/** A reset's checkpoint generations, or the details as compact JSON (empty for most actions). */
function describe(details: unknown): string {
  const gen = (details as { checkpoint_generation?: { from: number; to: number } } | null)?.checkpoint_generation;
  if (gen) return `checkpoint generation ${gen.from} → ${gen.to}`;
  return details && typeof details === "object" && Object.keys(details).length ? JSON.stringify(details) : "";
}

/** A streaming job's operations: state badge, last error, restarts, Start/Stop/Restart/Reset (for developers and
 * admins; viewers get none), the numbers at a glance and the live metric charts. */
export function StreamPanel({ jobId }: { jobId: number | string }) {
  const { team, role } = useTeam();
  const state = useStreamState(team, jobId);
  const action = useStreamAction(team, jobId);
  const [confirmReset, setConfirmReset] = useState(false);

  if (state.isPending) return <Loading label="Loading stream state…" />;
  if (state.error) return <ErrorBox error={state.error} onRetry={() => state.refetch()} title="Stream state" />;
  const s = state.data;
  const allowed = allowedActions(s.status, role);
  const act = (a: StreamAction) => (a === "reset" ? setConfirmReset(true) : action.mutate(a));

  return (
    <>
      <section className="card" aria-label="Streaming job" data-testid="stream-panel">
        <div className="stream-head">
          <h2 style={{ margin: 0 }}>Stream</h2>
          <StreamStatusBadge status={s.status} />
          <span className="muted" data-testid="stream-restarts">
            {s.restarts === 1 ? "1 restart" : `${s.restarts} restarts`}
          </span>
          {canOperate(role) && (
            <div className="stream-actions" role="group" aria-label="Stream actions">
              {(["start", "stop", "restart", "reset"] as const).map((a) => (
                <button key={a} type="button" className={`btn small${a === "start" ? " primary" : a === "reset" ? " danger" : ""}`}
                        disabled={!allowed.has(a) || action.isPending} onClick={() => act(a)}>
                  {LABEL[a]}
                </button>
              ))}
            </div>
          )}
        </div>
        <dl className="props">
          <dt>Wanted</dt>
          <dd>{s.desired}</dd>
          <dt>Started</dt>
          <dd>{formatDateTime(s.started_at)}</dd>
          <dt>Heartbeat</dt>
          <dd>{formatDateTime(s.heartbeat_at)}</dd>
          <dt>Checkpoint</dt>
          <dd>generation {s.checkpoint_generation}</dd>
        </dl>
        {s.last_error && (
          <div className="error-box stream-error" role="alert" data-testid="stream-last-error">
            <div><strong>Last error: </strong>{s.last_error}</div>
          </div>
        )}
        {action.error && <ErrorBox error={action.error} title="Action refused" />}
        <AtAGlance state={s} />
      </section>
      <StreamMetricsCharts team={team} jobId={jobId} live={isActive(s.status)} />
      <StreamHistory team={team} jobId={jobId} />
      <ConfirmDialog
        open={confirmReset}
        title="Reset the stream?"
        message={`The checkpoint (generation ${s.checkpoint_generation}) is discarded: the job forgets its progress and state, and on its next start it starts over from the beginning of its sources. Rows already written to the target table stay there, so the replayed results are written again. The reset is recorded in the audit log.`}
        confirmLabel="Discard checkpoint"
        busy={action.isPending}
        onCancel={() => setConfirmReset(false)}
        onConfirm={() => action.mutate("reset", { onSettled: () => setConfirmReset(false) })}
      />
    </>
  );
}
