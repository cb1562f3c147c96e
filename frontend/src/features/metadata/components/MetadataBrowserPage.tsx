import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";
import { Link } from "react-router";

import { EmptyState, ErrorBox, Loading, PageHeader } from "@/components/Status";
import { MaterializedViews } from "@/features/metadata/components/MaterializedViews";
import { TableColumns } from "@/features/metadata/components/TableColumns";
import { useTeam } from "@/hooks/use-team";
import { catalogNamesQuery } from "@/lib/queries/catalogs";
import { databasesQuery, metadataKeys, tablesQuery, type TableSummary } from "@/lib/queries/metadata";

type TableSelected = { catalog: string; database: string; table: string };
/** A catalog or a schema whose permissions are shown. */
type LevelSelected = { catalog: string; database?: string; permissions: true };
/** A table, a Delta catalog's materialized views (`views`), or a catalog's or schema's permissions. */
type Selected = TableSelected | { catalog: string; views: true } | LevelSelected | null;
/** What a Permissions tab is about (the app passes a panel of the permissions feature: features do not import each other). */
export type PermissionsTarget = { catalog: string; database?: string; table?: string };
export type RenderPermissions = (target: PermissionsTarget) => ReactNode;

const isTable = (s: Selected): s is TableSelected => s !== null && "table" in s;
const isLevel = (s: Selected): s is LevelSelected => s !== null && "permissions" in s;
const sameLevel = (s: Selected, catalog: string, database?: string) =>
  isLevel(s) && s.catalog === catalog && s.database === database;

/** Catalog types whose catalogs hold materialized views (lakeport_engine.matviews.VIEW_CATALOG_TYPES). */
const VIEW_CATALOG_TYPES = new Set(["delta"]);

type TreeCtx = {
  team: string;
  filter: string;
  expanded: Set<string>;
  toggle: (key: string) => void;
  selected: Selected;
  select: (s: Selected) => void;
  loadedMatch: (prefix: readonly unknown[]) => boolean;
  withPermissions: boolean;
};

const matches = (name: string, filter: string) => !filter || name.toLowerCase().includes(filter);

/** Catalog → database → table tree, each level loaded when opened, with a filter over what is loaded; with
 * `renderPermissions`, a Permissions tab on every table and a Permissions button on every catalog and schema. */
export function MetadataBrowserPage({ renderPermissions }: { renderPermissions?: RenderPermissions }) {
  const { team, isAdmin, canRunSql } = useTeam();
  const qc = useQueryClient();
  const catalogs = useQuery(catalogNamesQuery(team));
  const [filterText, setFilterText] = useState("");
  const [expanded, setExpanded] = useState<Set<string>>(new Set());
  const [selected, setSelected] = useState<Selected>(null);
  const [tableTab, setTableTab] = useState<"columns" | "permissions">("columns");
  const [, setCacheVersion] = useState(0);
  // re-render when a level finishes loading, so the filter sees it (only on new data: observer events
  // fire on every render and would loop)
  useEffect(
    () =>
      qc.getQueryCache().subscribe((event) => {
        if (event.type === "updated" && event.action.type === "success") setCacheVersion((v) => v + 1);
      }),
    [qc],
  );
  const filter = filterText.trim().toLowerCase();

  /** Whether anything already loaded under `prefix` (a metadataKeys prefix) matches the filter. */
  const loadedMatch = (prefix: readonly unknown[]): boolean => {
    if (!filter) return true;
    for (const [, data] of qc.getQueriesData<unknown>({ queryKey: prefix })) {
      if (Array.isArray(data) && data.some((x) => matches(typeof x === "string" ? x : (x as TableSummary).name, filter))) return true;
    }
    return false;
  };

  const ctx: TreeCtx = {
    team,
    filter,
    expanded,
    toggle: (key) =>
      setExpanded((old) => {
        const next = new Set(old);
        if (next.has(key)) next.delete(key);
        else next.add(key);
        return next;
      }),
    selected,
    select: setSelected,
    loadedMatch,
    withPermissions: renderPermissions !== undefined,
  };

  const visible = catalogs.data?.filter((c) => matches(c.catalog_name, filter) || loadedMatch(metadataKeys.catalog(team, c.catalog_name))) ?? [];

  return (
    <>
      <PageHeader title="Browse metadata" />
      <div className="browser">
        <section className="card tree-panel" aria-label="Catalog tree">
          <div className="field">
            <label htmlFor="tree-search">Search</label>
            <input
              id="tree-search"
              type="search"
              placeholder="Filter catalogs, databases, tables"
              value={filterText}
              onChange={(e) => setFilterText(e.target.value)}
              autoComplete="off"
              aria-describedby="tree-search-help"
            />
            <p className="help" id="tree-search-help">Searches what is loaded; open a catalog or database to search inside it.</p>
          </div>
          {catalogs.isPending ? (
            <Loading label="Loading catalogs…" />
          ) : catalogs.error ? (
            <ErrorBox error={catalogs.error} title="Could not load catalogs" onRetry={() => catalogs.refetch()} />
          ) : catalogs.data.length === 0 ? (
            <EmptyState title="No catalogs">
              <p>
                <Link to={`/t/${encodeURIComponent(team)}/catalogs`}>Catalogs</Link> lists what can be browsed.
              </p>
            </EmptyState>
          ) : (
            <ul className="tree" data-testid="metadata-tree">
              {visible.length === 0 && <li className="muted">Nothing loaded matches “{filterText}”.</li>}
              {visible.map((c) => (
                <CatalogNode key={c.catalog_name} ctx={ctx} catalog={c.catalog_name} type={c.catalog_type} parentMatched={matches(c.catalog_name, filter)} />
              ))}
            </ul>
          )}
        </section>
        <section className="card columns-panel" aria-label="Table details">
          {isTable(selected) && renderPermissions ? (
            <>
              <div className="tabs" role="tablist" aria-label="Table view">
                <button type="button" role="tab" className="tab" aria-selected={tableTab === "columns"} onClick={() => setTableTab("columns")}>
                  Columns
                </button>
                <button type="button" role="tab" className="tab" aria-selected={tableTab === "permissions"} onClick={() => setTableTab("permissions")}>
                  Permissions
                </button>
              </div>
              {tableTab === "columns" ? (
                <TableColumns team={team} isAdmin={isAdmin} {...selected} />
              ) : (
                <div role="tabpanel" aria-label={`Permissions of ${selected.catalog}.${selected.database}.${selected.table}`}>
                  <h2 className="mono">{`${selected.catalog}.${selected.database}.${selected.table}`}</h2>
                  {renderPermissions(selected)}
                </div>
              )}
            </>
          ) : isTable(selected) ? (
            <TableColumns team={team} isAdmin={isAdmin} {...selected} />
          ) : isLevel(selected) && renderPermissions ? (
            <div role="region" aria-label={`Permissions of ${selected.database ? `schema ${selected.catalog}.${selected.database}` : `catalog ${selected.catalog}`}`}>
              <h2 className="mono">{selected.database ? `${selected.catalog}.${selected.database}` : selected.catalog}</h2>
              <p className="muted">{selected.database ? "Schema" : "Catalog"} permissions</p>
              {renderPermissions({ catalog: selected.catalog, database: selected.database })}
            </div>
          ) : selected && !isLevel(selected) ? (
            <MaterializedViews team={team} catalog={selected.catalog} canRefresh={canRunSql} />
          ) : (
            <p className="muted">Open a catalog and a database, then pick a table to see its columns (or a Delta catalog&apos;s materialized views).</p>
          )}
        </section>
      </div>
    </>
  );
}

function Toggle({ open, label, onClick, icon }: { open: boolean; label: string; onClick: () => void; icon: string }) {
  return (
    <button type="button" className="tree-toggle" aria-expanded={open} onClick={onClick}>
      <span className="caret" aria-hidden="true">{open ? "▾" : "▸"}</span>
      {icon && <span className="tree-icon" aria-hidden="true">{icon}</span>}
      {label}
    </button>
  );
}

/** The button that shows a catalog's or a schema's permissions in the details panel. */
function PermissionsButton({ ctx, catalog, database }: { ctx: TreeCtx; catalog: string; database?: string }) {
  if (!ctx.withPermissions) return null;
  const on = sameLevel(ctx.selected, catalog, database);
  const name = database ? `${catalog}.${database}` : catalog;
  return (
    <button type="button" className={`tree-leaf tree-action ${on ? "selected" : ""}`} aria-current={on || undefined}
            aria-label={`Permissions of ${name}`} title={`Permissions of ${name}`}
            onClick={() => ctx.select({ catalog, database, permissions: true })}>
      <span aria-hidden="true">access</span>
    </button>
  );
}

function CatalogNode({ ctx, catalog, type, parentMatched }: { ctx: TreeCtx; catalog: string; type: string; parentMatched: boolean }) {
  const key = catalog;
  const open = ctx.expanded.has(key);
  const dbs = useQuery({ ...databasesQuery(ctx.team, catalog), enabled: open });
  const shown = dbs.data?.filter((d) => parentMatched || matches(d, ctx.filter) || ctx.loadedMatch(metadataKeys.tables(ctx.team, catalog, d))) ?? [];
  const viewsSelected = ctx.selected !== null && "views" in ctx.selected && ctx.selected.catalog === catalog;
  return (
    <li>
      <Toggle open={open} label={catalog} icon="" onClick={() => ctx.toggle(key)} />
      <span className={`type-chip type-${type}`}>{type}</span>
      <PermissionsButton ctx={ctx} catalog={catalog} />
      {open && (
        <ul>
          {VIEW_CATALOG_TYPES.has(type) && (
            <li>
              <button
                type="button"
                className={`tree-leaf ${viewsSelected ? "selected" : ""}`}
                aria-current={viewsSelected || undefined}
                onClick={() => ctx.select({ catalog, views: true })}
              >
                <span aria-hidden="true">◈</span> Materialized views
              </button>
            </li>
          )}
          {dbs.isPending ? (
            <li><Loading label="Loading databases…" /></li>
          ) : dbs.error ? (
            <li><ErrorBox error={dbs.error} onRetry={() => dbs.refetch()} /></li>
          ) : shown.length === 0 ? (
            <li className="muted">{dbs.data.length ? "No match." : "No databases."}</li>
          ) : (
            shown.map((d) => (
              <DatabaseNode key={d} ctx={ctx} catalog={catalog} database={d} parentMatched={parentMatched || matches(d, ctx.filter)} />
            ))
          )}
        </ul>
      )}
    </li>
  );
}

function DatabaseNode({ ctx, catalog, database, parentMatched }: { ctx: TreeCtx; catalog: string; database: string; parentMatched: boolean }) {
  const key = `${catalog}/${database}`;
  const open = ctx.expanded.has(key);
  const tables = useQuery({ ...tablesQuery(ctx.team, catalog, database), enabled: open });
  const shown = tables.data?.filter((t) => parentMatched || matches(t.name, ctx.filter)) ?? [];
  return (
    <li>
      <Toggle open={open} label={database} icon="" onClick={() => ctx.toggle(key)} />
      <PermissionsButton ctx={ctx} catalog={catalog} database={database} />
      {open && (
        <ul>
          {tables.isPending ? (
            <li><Loading label="Loading tables…" /></li>
          ) : tables.error ? (
            <li><ErrorBox error={tables.error} onRetry={() => tables.refetch()} /></li>
          ) : shown.length === 0 ? (
            <li className="muted">{tables.data.length ? "No match." : "No tables."}</li>
          ) : (
            shown.map((t) => {
              const sel = ctx.selected;
              const isSel = isTable(sel) && sel.catalog === catalog && sel.database === database && sel.table === t.name;
              return (
                <li key={t.name}>
                  <button
                    type="button"
                    className={`tree-leaf ${isSel ? "selected" : ""}`}
                    aria-current={isSel || undefined}
                    onClick={() => ctx.select({ catalog, database, table: t.name })}
                  >
                    <span aria-hidden="true">▦</span> {t.name}
                    {t.kind && t.kind !== "table" && <span className="muted"> ({t.kind})</span>}
                  </button>
                </li>
              );
            })
          )}
        </ul>
      )}
    </li>
  );
}
