import { useState } from "react";
import { Link } from "react-router";

import { ErrorBox } from "@/components/Status";
import { useRunMaintenance, type MaintenanceOperation } from "@/features/metadata/api/table-maintenance";

/** OPTIMIZE / VACUUM of a Delta table for team admins: each queues a run whose result holds Delta's metrics. */
export function TableMaintenance({ team, catalog, database, table }: { team: string; catalog: string; database: string; table: string }) {
  const run = useRunMaintenance(team, catalog, database, table);
  const [retain, setRetain] = useState("");
  const [last, setLast] = useState<{ operation: MaintenanceOperation; id: number } | null>(null);
  const start = (operation: MaintenanceOperation) => {
    const retainHours = operation === "vacuum" && retain.trim() !== "" ? Number(retain) : undefined;
    run.mutate({ operation, retainHours }, { onSuccess: (r) => setLast({ operation, id: r.id }) });
  };
  return (
    <section className="table-maintenance" aria-label="Table maintenance" data-testid="table-maintenance">
      <h3>Maintenance</h3>
      <button type="button" className="btn" disabled={run.isPending} onClick={() => start("optimize")}>
        Run OPTIMIZE
      </button>{" "}
      <label className="small" htmlFor="vacuum-retain">Retain hours</label>{" "}
      <input id="vacuum-retain" type="number" min={0} value={retain} placeholder="table default"
             onChange={(e) => setRetain(e.target.value)} />{" "}
      <button type="button" className="btn" disabled={run.isPending} onClick={() => start("vacuum")}>
        Run VACUUM
      </button>
      {run.error ? <ErrorBox error={run.error} title="Not started" /> : null}
      {last && (
        <p className="muted small">
          {last.operation.toUpperCase()} queued:{" "}
          <Link to={`/t/${encodeURIComponent(team)}/runs/${last.id}`}>run #{last.id}</Link>
        </p>
      )}
    </section>
  );
}
