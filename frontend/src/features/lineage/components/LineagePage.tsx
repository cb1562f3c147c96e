import { useQuery } from "@tanstack/react-query";
import "@xyflow/react/dist/style.css";

import dagre from "@dagrejs/dagre";
import { Background, Controls, Position, ReactFlow, type Edge, type Node } from "@xyflow/react";
import { useMemo, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { ErrorBox, Loading, PageHeader } from "@/components/Status";
import type { LineageDataset, LineageGraph } from "@/features/lineage/types";
import { useTeam } from "@/hooks/use-team";
import { columnLineageQuery, datasetByNameQuery, datasetQuery, lineageGraphQuery } from "@/lib/queries/lineage";

const NODE_W = 230;
const NODE_H = 44;

/** Datasets and jobs of both walks, laid out left (upstream) to right (downstream) by dagre. */
function layout(graphs: LineageGraph[], start: number): { nodes: Node[]; edges: Edge[] } {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", nodesep: 24, ranksep: 70 });
  g.setDefaultEdgeLabel(() => ({}));
  const nodes = new Map<string, Node>();
  const edges = new Map<string, Edge>();
  for (const graph of graphs) {
    for (const d of graph.datasets) {
      const mark = viewMark(d);
      nodes.set(`d${d.id}`, {
        id: `d${d.id}`, position: { x: 0, y: 0 },
        data: { label: mark ? `${d.name} · ${mark.text}` : d.name, kind: "dataset", id: d.id },
        className: `lineage-node dataset${d.id === start ? " start" : ""}${mark ? ` ${mark.className}` : ""}`,
      });
    }
    for (const j of graph.jobs) {
      nodes.set(`j${j.id}`, { id: `j${j.id}`, position: { x: 0, y: 0 }, data: { label: `job: ${j.name}`, kind: "job", id: j.id }, className: "lineage-node job" });
    }
    for (const e of graph.edges) {
      const [source, target] = e.direction === "in" ? [`d${e.dataset}`, `j${e.job}`] : [`j${e.job}`, `d${e.dataset}`];
      edges.set(`${source}-${target}`, {
        id: `${source}-${target}`, source, target, animated: e.last_status === "RUNNING",
        className: e.last_status === "FAILED" ? "lineage-edge failed" : "lineage-edge",
      });
    }
  }
  nodes.forEach((n) => g.setNode(n.id, { width: NODE_W, height: NODE_H }));
  edges.forEach((e) => { if (nodes.has(e.source) && nodes.has(e.target)) g.setEdge(e.source, e.target); });
  dagre.layout(g);
  const placed = [...nodes.values()].map((n) => {
    const p = g.node(n.id);
    return {
      ...n, position: { x: p.x - NODE_W / 2, y: p.y - NODE_H / 2 }, style: { width: NODE_W },
      sourcePosition: Position.Right, targetPosition: Position.Left,
    };
  });
  return { nodes: placed, edges: [...edges.values()].filter((e) => nodes.has(e.source) && nodes.has(e.target)) };
}

/** How a materialized view node reads: fresh, or stale with how far behind its sources (versions and time). */
export function viewMark(d: LineageDataset, now: number = Date.now()): { text: string; className: string } | null {
  const view = d.view;
  if (!view) return null;
  if (!view.stale) return { text: "MV fresh", className: "mv-fresh" };
  const versions = `${view.behind} version${view.behind === 1 ? "" : "s"}`;
  const since = view.stale_since ? Date.parse(view.stale_since) : NaN;
  return { text: Number.isNaN(since) ? `MV stale (${versions} behind)` : `MV stale (${versions}, ${age(now - since)} behind)`, className: "mv-stale" };
}

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** A table's lineage: the jobs that make it and what feeds them, the jobs that read it and what they make. */
export function LineagePage() {
  const { team } = useTeam();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const tableName = params.get("table");
  const idParam = params.get("dataset");
  const byName = useQuery(datasetByNameQuery(team, idParam ? null : tableName));
  const id = idParam ? Number(idParam) : byName.data?.[0]?.id ?? null;
  const [depth, setDepth] = useState(3);
  const [column, setColumn] = useState<string | null>(null);
  const detail = useQuery(datasetQuery(team, id));
  const up = useQuery(lineageGraphQuery(team, id, "upstream", depth));
  const down = useQuery(lineageGraphQuery(team, id, "downstream", depth));
  const columnLineage = useQuery(columnLineageQuery(team, id, column));
  const drawn = useMemo(() => (up.data && down.data && id !== null ? layout([up.data, down.data], id) : null), [up.data, down.data, id]);
  const base = `/t/${encodeURIComponent(team)}`;

  if (!idParam && byName.isPending && tableName) return <Loading label="Looking up the table…" />;
  if (byName.error) return <ErrorBox error={byName.error} onRetry={() => byName.refetch()} />;
  if (id === null) {
    return (
      <>
        <PageHeader title="Lineage" />
        <p className="muted" data-testid="lineage-empty">
          {tableName ? <>No run of this team has read or written <span className="mono">{tableName}</span> yet.</> : "Pick a table in the metadata browser."}
        </p>
      </>
    );
  }
  const error = detail.error ?? up.error ?? down.error;
  const startView = up.data?.datasets.find((d) => d.id === id)?.view ?? null;
  return (
    <>
      <PageHeader title={<>Lineage of <span className="mono">{detail.data?.name ?? tableName}</span></>}>
        <label>
          Depth{" "}
          <select value={depth} onChange={(e) => setDepth(Number(e.target.value))} aria-label="Depth">
            {[1, 2, 3, 5, 10].map((d) => <option key={d} value={d}>{d}</option>)}
          </select>
        </label>
      </PageHeader>
      {error && <ErrorBox error={error} />}
      {detail.data && (
        <p className="muted">
          <span className="mono">{physicalIdentity(detail.data.namespace, detail.data.physical_name)}</span>
          {detail.data.aliases.length > 1 && <> · also {detail.data.aliases.slice(1).join(", ")}</>}
        </p>
      )}
      {startView && (
        <section className="card" data-testid="lineage-view-freshness">
          <h2>Materialized view: {startView.stale ? "stale" : "fresh"}</h2>
          <table>
            <thead><tr><th>source</th><th>reflects</th><th>latest</th><th>behind</th><th>since</th></tr></thead>
            <tbody>
              {startView.sources.map((src) => (
                <tr key={src.name}>
                  <td className="mono">{src.name}</td><td>{src.reflected}</td><td>{src.latest ?? "?"}</td>
                  <td>{src.behind ?? "?"}</td><td>{src.since ? new Date(src.since).toLocaleString() : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {!drawn ? (
        <Loading label="Loading lineage…" />
      ) : (
        <div className="lineage-canvas" data-testid="lineage-graph" style={{ height: 460 }}>
          <ReactFlow
            nodes={drawn.nodes}
            edges={drawn.edges}
            fitView
            nodesDraggable={false}
            onNodeClick={(_, node) => {
              const data = node.data as { kind: string; id: number };
              setColumn(null);
              navigate(data.kind === "job" ? `${base}/jobs/${data.id}` : `${base}/lineage?dataset=${data.id}`);
            }}
          >
            <Background />
            <Controls showInteractive={false} />
          </ReactFlow>
        </div>
      )}
      {detail.data && detail.data.columns.length > 0 && (
        <section className="card">
          <h2>Column lineage</h2>
          <p>
            {detail.data.columns.map((c) => (
              <button key={c} type="button" className={`btn ${c === column ? "primary" : ""}`} onClick={() => setColumn(c)}>
                {c}
              </button>
            ))}
          </p>
          {columnLineage.data && (
            <ul data-testid="column-lineage">
              {columnLineage.data.edges.map((s, i) => (
                <li key={i}>
                  <span className="mono">{s.dataset}.{s.column}</span> ← <span className="mono">{s.input_dataset}.{s.input_column}</span>{" "}
                  <span className="muted">({s.kind}, job <Link to={`${base}/jobs/${s.job.id}`}>{s.job.name}</Link>)</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </>
  );
}

/** A dataset's physical identity as a URI: `file:/path` for local files (namespace `file`), else namespace + name. */
function physicalIdentity(namespace: string, name: string): string {
  return namespace === "file" ? `file:${name}` : `${namespace}/${name.replace(/^\//, "")}`;
}
