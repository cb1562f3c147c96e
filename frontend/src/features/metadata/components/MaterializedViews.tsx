import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link } from "react-router";

import { EmptyState, ErrorBox, Loading } from "@/components/Status";
import { errorMessage } from "@/lib/api-client";
import { formatDateTime } from "@/lib/format";
import {
  materializedViewKeys,
  materializedViewsQuery,
  refreshHistoryQuery,
  useRefreshView,
  type LastRefresh,
  type MaterializedView,
} from "@/lib/queries/materialized-views";

const e = encodeURIComponent;

/** How far behind a view is: the versions its sources committed since the ones it reflects. */
function behindText(view: MaterializedView): string {
  const behind = Object.values(view.sources).reduce((n, s) => n + (s.behind ?? 0), 0);
  return behind ? `stale (${behind} version${behind === 1 ? "" : "s"} behind)` : "fresh";
}

function refreshText(view: MaterializedView): string {
  if (view.refresh_mode === "schedule") return `cron ${view.schedule_cron}${view.schedule_timezone ? ` (${view.schedule_timezone})` : ""}`;
  return view.refresh_mode === "on_commit" ? "on commit" : "manual";
}

/** The materialized views of one Delta catalog: state, staleness, last and next refresh; Refresh / Refresh FULL
 * for developers and admins; each view's refresh history (its refresh runs). */
export function MaterializedViews({ team, catalog, canRefresh }: { team: string; catalog: string; canRefresh: boolean }) {
  const views = useQuery(materializedViewsQuery(team, catalog));
  const refresh = useRefreshView(team, catalog);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div data-testid="materialized-views">
      <h2>
        Materialized views of <span className="mono">{catalog}</span>
      </h2>
      {views.isPending ? (
        <Loading label="Loading materialized views…" />
      ) : views.error ? (
        <ErrorBox error={views.error} title="Could not load the materialized views" onRetry={() => views.refetch()} />
      ) : views.data.length === 0 ? (
        <EmptyState title="No materialized views">
          <p>
            Create one in the <Link to={`/t/${e(team)}/sql`}>SQL editor</Link> with{" "}
            <code>CREATE MATERIALIZED VIEW {catalog}.db.name AS SELECT …</code>.
          </p>
        </EmptyState>
      ) : (
        <>
          {refresh.error && <p className="error-text" role="alert">{errorMessage(refresh.error)}</p>}
          <table className="table compact" aria-label={`Materialized views of ${catalog}`}>
            <thead>
              <tr>
                <th scope="col">View</th>
                <th scope="col">State</th>
                <th scope="col">Freshness</th>
                <th scope="col">Refresh</th>
                <th scope="col">Last refresh</th>
                <th scope="col">Next refresh</th>
                <th scope="col"><span className="sr-only">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {views.data.map((v) => {
                const key = `${v.database}.${v.name}`;
                const last = v.last_refresh as LastRefresh;
                return (
                  <tr key={key} data-testid={`mview-${key}`}>
                    <td className="mono">
                      <button type="button" className="tree-leaf" aria-expanded={open === key} onClick={() => setOpen(open === key ? null : key)}>
                        {key}
                      </button>
                    </td>
                    <td className={v.state === "failed" ? "status-failed" : undefined}>
                      {/* `state` says whether the last refresh worked ("fresh"); staleness is the next column */}
                      {v.state === "fresh" ? "ok" : v.state === "failed" ? "refresh failed" : v.state}
                      {v.refresh_again && <div className="muted small">one more refresh queued</div>}
                    </td>
                    <td className={v.stale ? "status-cancelled" : "status-succeeded"} data-testid="freshness">
                      {behindText(v)}
                    </td>
                    <td>{refreshText(v)}</td>
                    <td>
                      {formatDateTime(last?.at)}
                      {last?.mode && <span className="muted"> · {last.mode}</span>}
                      {last?.error && <div className="status-failed small">failed: {last.error}</div>}
                    </td>
                    <td>{formatDateTime(v.next_refresh)}</td>
                    <td>
                      {canRefresh && (
                        <span>
                          <button type="button" className="btn small" disabled={refresh.isPending}
                            onClick={() => { setOpen(key); refresh.mutate({ database: v.database, view: v.name, full: false }); }}>
                            Refresh
                          </button>{" "}
                          <button type="button" className="btn small" disabled={refresh.isPending}
                            onClick={() => { setOpen(key); refresh.mutate({ database: v.database, view: v.name, full: true }); }}>
                            Refresh FULL
                          </button>
                        </span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {views.data
            .filter((v) => open === `${v.database}.${v.name}`)
            .map((v) => (
              <ViewDetails key={`${v.database}.${v.name}`} team={team} catalog={catalog} view={v} />
            ))}
        </>
      )}
    </div>
  );
}

function ViewDetails({ team, catalog, view }: { team: string; catalog: string; view: MaterializedView }) {
  const history = useQuery(refreshHistoryQuery(team, catalog, view.database, view.name));
  const fq = `${catalog}.${view.database}.${view.name}`;
  const qc = useQueryClient();
  const active = history.data?.filter((r) => r.status === "QUEUED" || r.status === "RUNNING").length ?? 0;
  const wasActive = useRef(active);
  // a refresh run just ended: the list's freshness and last refresh changed
  useEffect(() => {
    if (wasActive.current > 0 && active === 0) void qc.invalidateQueries({ queryKey: materializedViewKeys.list(team, catalog) });
    wasActive.current = active;
  }, [active, qc, team, catalog]);
  return (
    <section aria-label={`Materialized view ${fq}`} data-testid="mview-details">
      <h3 className="mono">{fq}</h3>
      <pre className="mono small wrap">{view.query}</pre>
      <table className="table compact" aria-label={`Sources of ${fq}`}>
        <thead>
          <tr>
            <th scope="col">Source</th>
            <th scope="col">Reflects version</th>
            <th scope="col">Latest</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(view.sources).map(([name, s]) => (
            <tr key={name}>
              <td className="mono">{name}</td>
              <td>{s.reflected}</td>
              <td>{s.latest ?? "—"}{s.behind ? <span className="muted"> ({s.behind} behind)</span> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h4>Refresh history</h4>
      {history.isPending ? (
        <Loading label="Loading refresh runs…" />
      ) : history.error ? (
        <ErrorBox error={history.error} onRetry={() => history.refetch()} />
      ) : history.data.length === 0 ? (
        <p className="muted">Not refreshed by a run yet.</p>
      ) : (
        <table className="table compact" aria-label={`Refresh runs of ${fq}`} data-testid="refresh-history">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Kind</th>
              <th scope="col">Queued</th>
              <th scope="col">Finished</th>
            </tr>
          </thead>
          <tbody>
            {history.data.map((r) => (
              <tr key={r.id}>
                <td><Link to={`/t/${e(team)}/runs/${r.id}`}>#{r.id}</Link></td>
                <td className={`status status-${r.status.toLowerCase()}`}>{r.status}</td>
                <td>{r.job_name.endsWith(" full") ? "full" : "incremental if possible"}</td>
                <td>{formatDateTime(r.created_at)}</td>
                <td>{formatDateTime(r.finished_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
