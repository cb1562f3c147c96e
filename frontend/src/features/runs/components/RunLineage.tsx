import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";

import type { RunDataset } from "@/features/runs/types";
import { runLineageQuery } from "@/lib/queries/lineage";

function Rows({ team, items, verb }: { team: string; items: RunDataset[]; verb: string }) {
  return (
    <>
      {items.map((d, i) => (
        <tr key={`${verb}-${i}`}>
          <td>{verb}</td>
          <td><Link className="mono" to={`/t/${encodeURIComponent(team)}/lineage?dataset=${d.id}`}>{d.name}</Link></td>
          <td>{d.statement + 1}</td>
          <td>{d.version ?? "—"}</td>
        </tr>
      ))}
    </>
  );
}

/** What a run read and wrote, statement by statement, with the Delta versions. */
export function RunLineage({ team, runId, finished }: { team: string; runId: number; finished: boolean }) {
  const q = useQuery(runLineageQuery(team, runId, finished));
  if (!q.data || (q.data.inputs.length === 0 && q.data.outputs.length === 0)) return null;
  return (
    <section className="card" data-testid="run-lineage">
      <h2>Read and written</h2>
      <div className="table-scroll">
      <table className="table">
        <thead>
          <tr><th scope="col"></th><th scope="col">Table</th><th scope="col">Statement</th><th scope="col">Delta version</th></tr>
        </thead>
        <tbody>
          <Rows team={team} items={q.data.inputs} verb="read" />
          <Rows team={team} items={q.data.outputs} verb="wrote" />
        </tbody>
      </table>
      </div>
    </section>
  );
}
