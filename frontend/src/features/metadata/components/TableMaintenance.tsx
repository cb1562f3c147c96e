import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Link } from "react-router";

import { ErrorBox, Loading } from "@/components/Status";
import {
  maintenanceHistoryQuery,
  maintenanceResultQuery,
  useRunMaintenance,
  type MaintenanceOperation,
  type MaintenanceRun,
} from "@/features/metadata/api/table-maintenance";
import { formatDateTime } from "@/lib/format";
import { metadataKeys } from "@/lib/queries/metadata";

const e = encodeURIComponent;

/** OPTIMIZE / VACUUM of a Delta table: team admins queue runs; every member sees the table's maintenance history,
 * each run with Delta's metrics (or the reason it failed). When a run ends the panel's version and row count are
 * read again. */
export function TableMaintenance({ team, catalog, database, table, canRun }: {
  team: string; catalog: string; database: string; table: string; canRun: boolean;
}) {
  const run = useRunMaintenance(team, catalog, database, table);
  const history = useQuery(maintenanceHistoryQuery(team, catalog, database, table));
  const [retain, setRetain] = useState("");
  const qc = useQueryClient();
  const active = history.data?.filter((r) => r.status === "QUEUED" || r.status === "RUNNING").length ?? 0;
  const wasActive = useRef(active);
  // a maintenance run just ended: the table has a new version
  useEffect(() => {
    if (wasActive.current > 0 && active === 0) {
      void qc.invalidateQueries({ queryKey: metadataKeys.table(team, catalog, database, table) });
    }
    wasActive.current = active;
  }, [active, qc, team, catalog, database, table]);
  const start = (operation: MaintenanceOperation) => {
    const retainHours = operation === "vacuum" && retain.trim() !== "" ? Number(retain) : undefined;
    run.mutate({ operation, retainHours });
  };
  const fq = `${catalog}.${database}.${table}`;
  return (
    <section className="table-maintenance" aria-label="Table maintenance" data-testid="table-maintenance">
      <h3>Maintenance</h3>
      {canRun && (
        <p>
          <button type="button" className="btn" disabled={run.isPending} onClick={() => start("optimize")}>
            Run OPTIMIZE
          </button>{" "}
          <label className="small" htmlFor="vacuum-retain">Retain hours</label>{" "}
          <input id="vacuum-retain" type="number" min={0} value={retain} placeholder="table default"
                 onChange={(ev) => setRetain(ev.target.value)} />{" "}
          <button type="button" className="btn" disabled={run.isPending} onClick={() => start("vacuum")}>
            Run VACUUM
          </button>
        </p>
      )}
      {run.error ? <ErrorBox error={run.error} title="Not started" /> : null}
      {history.isPending ? (
        <Loading label="Loading maintenance runs…" />
      ) : history.error ? (
        <ErrorBox error={history.error} onRetry={() => history.refetch()} />
      ) : history.data.length === 0 ? (
        <p className="muted small">No OPTIMIZE or VACUUM run yet.</p>
      ) : (
        <table className="table compact" aria-label={`Maintenance runs of ${fq}`} data-testid="maintenance-history">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Operation</th>
              <th scope="col">Status</th>
              <th scope="col">Queued</th>
              <th scope="col">Finished</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {history.data.map((r) => (
              <tr key={r.id} data-testid={`maintenance-run-${r.id}`}>
                <td><Link to={`/t/${e(team)}/runs/${r.id}`}>#{r.id}</Link></td>
                <td className="mono">{r.job_name.split(" ")[0].toUpperCase()}</td>
                <td className={`status status-${r.status.toLowerCase()}`}>{r.status}</td>
                <td>{formatDateTime(r.created_at)}</td>
                <td>{formatDateTime(r.finished_at)}</td>
                <td data-testid="outcome"><Outcome team={team} run={r} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** What a finished maintenance run did, in Delta's terms; a failed run's message names the rule it broke. */
function Outcome({ team, run }: { team: string; run: MaintenanceRun }) {
  const done = run.status === "SUCCEEDED";
  const result = useQuery({ ...maintenanceResultQuery(team, run.id), enabled: done });
  if (run.status === "FAILED") return <span className="status-failed small">{run.error?.message ?? "failed"}</span>;
  if (!done) return <span className="muted">—</span>;
  if (result.isPending) return <span className="muted">…</span>;
  if (result.error || result.data.rows.length === 0) return <span className="muted">no result</span>;
  const names = result.data.columns.map((c) => c.name);
  const row = result.data.rows[0];
  const value = (name: string): unknown => row[names.indexOf(name)];
  if (names.includes("metrics")) {
    const m = (value("metrics") ?? {}) as Record<string, unknown>;
    return <>{String(m.numFilesRemoved ?? 0)} files compacted into {String(m.numFilesAdded ?? 0)}</>;
  }
  if (names.includes("numDeletedFiles")) return <>{String(value("numDeletedFiles"))} files deleted</>;
  return <>{result.data.rows.length} file(s) listed</>;
}
