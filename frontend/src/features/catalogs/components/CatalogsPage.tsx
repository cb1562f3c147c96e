import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useSearchParams } from "react-router";

import { Pager } from "@/components/Pager";
import { EmptyState, ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useCatalogTypes } from "@/features/catalogs/api/get-catalog-types";
import { useDebounced } from "@/hooks/use-debounced";
import { useTeam } from "@/hooks/use-team";
import { formatDateTime } from "@/lib/format";
import { catalogListQuery } from "@/lib/queries/catalogs";

/** The team's catalogs with type and name filters; admins get "New catalog". */
export function CatalogsPage() {
  const { team, isAdmin } = useTeam();
  const [params, setParams] = useSearchParams();
  const catalogType = params.get("type") ?? "";
  const [name, setName] = useState(params.get("name") ?? "");
  const [page, setPage] = useState(1);
  const namePrefix = useDebounced(name.trim().toLowerCase(), 250);
  const types = useCatalogTypes(team);
  const list = useQuery(catalogListQuery(team, { catalogType: catalogType || undefined, namePrefix: namePrefix || undefined, page }));
  const typeName = (key: string) => types.data?.find((t) => t.key === key)?.display_name ?? key;
  const base = `/t/${encodeURIComponent(team)}/catalogs`;

  const setFilter = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
    setPage(1);
  };

  return (
    <>
      <PageHeader title="Catalogs">
        {isAdmin && (
          <Link className="btn primary" to={`${base}/new`}>
            New catalog
          </Link>
        )}
      </PageHeader>
      <div className="filters" role="search" aria-label="Filter catalogs">
        <div className="field">
          <label htmlFor="filter-type">Type</label>
          <select id="filter-type" value={catalogType} onChange={(e) => setFilter("type", e.target.value)}>
            <option value="">All types</option>
            {types.data?.map((t) => (
              <option key={t.key} value={t.key}>
                {t.display_name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-name">Name starts with</label>
          <input
            id="filter-name"
            type="search"
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setPage(1);
            }}
            placeholder="e.g. prod_"
            autoComplete="off"
          />
        </div>
      </div>
      {list.isPending ? (
        <Loading label="Loading catalogs…" />
      ) : list.error ? (
        <ErrorBox error={list.error} title="Could not load catalogs" onRetry={() => list.refetch()} />
      ) : list.data.results.length === 0 ? (
        <EmptyState title={catalogType || namePrefix ? "No catalog matches" : "No catalogs yet"}>
          {isAdmin && !catalogType && !namePrefix && (
            <p>
              <Link to={`${base}/new`}>Create the first catalog</Link> to point Spark at a JDBC database, a Hive
              Metastore or a Delta warehouse.
            </p>
          )}
        </EmptyState>
      ) : (
        <>
          <table className="table responsive" aria-label="Catalogs" aria-busy={list.isFetching}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Description</th>
                <th scope="col">Last change</th>
                <th scope="col">By</th>
              </tr>
            </thead>
            <tbody>
              {list.data.results.map((c) => (
                <tr key={c.catalog_name}>
                  <td data-label="Name">
                    <Link to={`${base}/${encodeURIComponent(c.catalog_name)}`} className="mono">
                      {c.catalog_name}
                    </Link>
                  </td>
                  <td data-label="Type">
                    <span className={`type-chip type-${c.catalog_type}`}>{typeName(c.catalog_type)}</span>
                  </td>
                  <td data-label="Description" className="desc">{c.description || <span className="muted">—</span>}</td>
                  <td data-label="Last change">{formatDateTime(c.update_time)}</td>
                  <td data-label="By">{c.updated_by ?? c.created_by ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} data={list.data} noun="catalogs" onPage={setPage} />
        </>
      )}
    </>
  );
}
