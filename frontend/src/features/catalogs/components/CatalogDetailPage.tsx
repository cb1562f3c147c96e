import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { ConfirmDialog } from "@/components/ConfirmDialog";
import { ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useDeleteCatalog } from "@/features/catalogs/api/delete-catalog";
import { useCatalogTypes } from "@/features/catalogs/api/get-catalog-types";
import { useTestConnection } from "@/features/catalogs/api/test-connection";
import { CatalogHistory } from "@/features/catalogs/components/CatalogHistory";
import { ConnectionResultView } from "@/features/catalogs/components/ConnectionResultView";
import { fieldsOf } from "@/features/catalogs/hooks/use-config-form";
import { schemaOf } from "@/features/catalogs/types";
import { useTeam } from "@/hooks/use-team";
import { formatDateTime } from "@/lib/format";
import { catalogQuery } from "@/lib/queries/catalogs";

function show(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (typeof value === "object") return Object.keys(value as object).length ? JSON.stringify(value) : "—";
  return String(value);
}

/** One catalog: its settings (secrets only as "set"), test connection, edit/delete for admins, history. */
export function CatalogDetailPage() {
  const { name = "" } = useParams();
  const { team, isAdmin, canRunSql } = useTeam();
  const navigate = useNavigate();
  const q = useQuery(catalogQuery(team, name));
  const types = useCatalogTypes(team);
  const test = useTestConnection(team);
  const del = useDeleteCatalog(team);
  const [confirming, setConfirming] = useState(false);
  const base = `/t/${encodeURIComponent(team)}/catalogs`;

  if (q.isPending) return <Loading label="Loading catalog…" />;
  if (q.error) return <ErrorBox error={q.error} title={`Could not load catalog ${name}`} onRetry={() => q.refetch()} />;
  const { catalog, etag } = q.data;
  const typeInfo = types.data?.find((t) => t.key === catalog.catalog_type);
  const fields = fieldsOf(schemaOf(typeInfo));
  const secrets = new Set(catalog.secrets_set);
  // fields from the schema first, then anything else the API returned
  const keys = [
    ...fields.map((f) => f.name),
    ...Object.keys(catalog.configuration).filter((k) => !fields.some((f) => f.name === k)),
  ];

  return (
    <>
      <PageHeader title={<span className="mono">{catalog.catalog_name}</span>}>
        {canRunSql && (
          <button type="button" className="btn" onClick={() => { test.reset(); test.mutate({ name }); }} disabled={test.isPending}>
            {test.isPending ? "Testing…" : "Test connection"}
          </button>
        )}
        {isAdmin && (
          <>
            <Link className="btn" to={`${base}/${encodeURIComponent(name)}/edit`}>
              Edit
            </Link>
            <button type="button" className="btn danger" onClick={() => setConfirming(true)}>
              Delete
            </button>
          </>
        )}
      </PageHeader>
      <ConnectionResultView result={test.data} error={test.error} />
      <section className="card">
        <dl className="props">
          <dt>Type</dt>
          <dd>{typeInfo?.display_name ?? catalog.catalog_type}</dd>
          <dt>Description</dt>
          <dd>{catalog.description || "—"}</dd>
          <dt>Created</dt>
          <dd>
            {formatDateTime(catalog.create_time)}
            {catalog.created_by && <> by {catalog.created_by}</>}
          </dd>
          <dt>Last change</dt>
          <dd>
            {formatDateTime(catalog.update_time)}
            {catalog.updated_by && <> by {catalog.updated_by}</>}
            {catalog.version !== undefined && <span className="muted"> · version {catalog.version}</span>}
          </dd>
        </dl>
        <h2>Configuration</h2>
        <dl className="props" data-testid="catalog-configuration">
          {keys.map((k) => {
            const f = fields.find((x) => x.name === k);
            const mapKeys = [...secrets].filter((p) => p.startsWith(`${k}.`)).map((p) => p.slice(k.length + 1));
            const secret = secrets.has(k) || f?.isSecret;
            return (
              <div key={k} className="prop-row">
                <dt className="mono">{k}</dt>
                <dd>
                  {secret && f?.kind === "map" ? (
                    mapKeys.length ? (
                      mapKeys.map((mk) => (
                        <span key={mk} className="secret-key">
                          <span className="mono">{mk}</span> <span className="badge ok">set</span>{" "}
                        </span>
                      ))
                    ) : (
                      <span className="muted">none</span>
                    )
                  ) : secret ? (
                    secrets.has(k) ? <span className="badge ok">set</span> : <span className="muted">not set</span>
                  ) : (
                    <span className="mono">{show(catalog.configuration[k])}</span>
                  )}
                </dd>
              </div>
            );
          })}
        </dl>
      </section>
      <CatalogHistory team={team} name={name} />
      <ConfirmDialog
        open={confirming}
        title={`Delete ${name}?`}
        message="Jobs that use this catalog will fail until a catalog with the same name exists again. This cannot be undone."
        confirmLabel="Delete catalog"
        busy={del.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          del.mutate(
            { name, ifMatch: etag },
            {
              onSuccess: () => navigate(base),
              onSettled: () => setConfirming(false),
            },
          )
        }
      />
      {del.error && <ErrorBox error={del.error} title="Could not delete" />}
    </>
  );
}
