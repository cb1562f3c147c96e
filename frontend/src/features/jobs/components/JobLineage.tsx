import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";

import type { JobDataset } from "@/features/jobs/types";
import { jobLineageQuery } from "@/lib/queries/lineage";

function Tables({ team, items }: { team: string; items: JobDataset[] }) {
  if (items.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {items.map((d, i) => (
        <span key={d.id}>
          {i > 0 && ", "}
          <Link className="mono" to={`/t/${encodeURIComponent(team)}/lineage?dataset=${d.id}`}>{d.name}</Link>
          {d.last_status === "FAILED" && <span className="muted"> (last run failed)</span>}
        </span>
      ))}
    </>
  );
}

/** A job's inputs and outputs, each a link to that table's lineage graph. */
export function JobLineage({ team, jobId }: { team: string; jobId: string }) {
  const q = useQuery(jobLineageQuery(team, jobId));
  if (!q.data || (q.data.inputs.length === 0 && q.data.outputs.length === 0)) return null;
  return (
    <section className="card" data-testid="job-lineage">
      <h2>Lineage</h2>
      <dl className="props">
        <dt>Reads</dt>
        <dd><Tables team={team} items={q.data.inputs} /></dd>
        <dt>Writes</dt>
        <dd><Tables team={team} items={q.data.outputs} /></dd>
      </dl>
    </section>
  );
}
