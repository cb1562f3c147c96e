import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { Link } from "react-router";

import { ErrorBox, Loading } from "@/components/Status";
import { InferredSchema } from "@/features/metadata/components/InferredSchema";
import { StreamSample } from "@/features/metadata/components/StreamSample";
import { TableMaintenance } from "@/features/metadata/components/TableMaintenance";
import { tableQuery } from "@/lib/queries/metadata";

/** Columns (with types and partition columns) of one table, and Delta's version and row count. */
export function TableColumns({ team, catalog, database, table, isAdmin = false }: {
  team: string; catalog: string; database: string; table: string; isAdmin?: boolean;
}) {
  const q = useQuery(tableQuery(team, catalog, database, table));
  const fq = `${catalog}.${database}.${table}`;
  const stream = q.data?.kind === "stream";
  // a stream table is read as STREAM(…): the editor previews it over the newest records
  const sql = stream ? `SELECT * FROM STREAM(${fq})` : `SELECT * FROM ${fq} LIMIT 100`;
  const box = useRef<HTMLDivElement>(null);
  // on a phone the details sit below the tree: bring them into view when a table is picked
  useEffect(() => {
    if (window.matchMedia("(max-width: 760px)").matches) box.current?.scrollIntoView({ block: "start" });
  }, [fq]);
  return (
    <div data-testid="table-details" ref={box}>
      <h2 className="mono">{fq}</h2>
      {q.isPending ? (
        <Loading label="Loading columns…" />
      ) : q.error ? (
        <ErrorBox error={q.error} title="Could not load the table" onRetry={() => q.refetch()} />
      ) : (
        <>
          <p className="muted">
            {q.data.kind && <>{q.data.kind} · </>}
            {q.data.columns.length} column{q.data.columns.length === 1 ? "" : "s"}
            {q.data.version !== undefined && q.data.version !== null && <> · version {q.data.version}</>}
            {q.data.row_count !== undefined && q.data.row_count !== null && <> · {q.data.row_count.toLocaleString()} rows</>}
          </p>
          {q.data.location && <p className="muted mono small wrap">{q.data.location}</p>}
          <table className="table compact" aria-label={`Columns of ${fq}`} data-testid="columns-table">
            <thead>
              <tr>
                <th scope="col">Column</th>
                <th scope="col">Type</th>
                <th scope="col">Nullable</th>
              </tr>
            </thead>
            <tbody>
              {q.data.columns.map((c) => (
                <tr key={c.name}>
                  <td className="mono">
                    {c.name}
                    {q.data.partition_columns.includes(c.name) && <span className="badge partition">partition</span>}
                  </td>
                  <td className="mono">{c.type}</td>
                  <td>{c.nullable ? "yes" : "no"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {stream && q.data.properties?.schema === "inferred" && (
            <InferredSchema team={team} catalog={catalog} database={database} table={table} canConfirm={isAdmin}
                            columns={q.data.columns.map((c) => ({ name: c.name, type: c.type }))}
                            sampled={q.data.properties["sampled-records"]} eventTime={q.data.properties["event-time"]} />
          )}
          {q.data.partition_columns.length > 0 && (
            <p className="muted">Partitioned by {q.data.partition_columns.join(", ")}.</p>
          )}
          {stream && <StreamSample key={fq} team={team} catalog={catalog} database={database} table={table} />}
          {/* a Delta table has a version: its maintenance history for every member; team admins can compact and vacuum it */}
          {!stream && q.data.kind === "delta" && q.data.version !== undefined && q.data.version !== null && (
            <TableMaintenance key={fq} team={team} catalog={catalog} database={database} table={table} canRun={isAdmin} />
          )}
          <Link className="btn" to={`/t/${encodeURIComponent(team)}/sql?sql=${encodeURIComponent(sql)}`}>
            Query in SQL editor
          </Link>{" "}
          <Link className="btn" to={`/t/${encodeURIComponent(team)}/lineage?table=${encodeURIComponent(fq)}`}>
            Lineage
          </Link>
        </>
      )}
    </div>
  );
}
