import { ErrorBox, Loading } from "@/components/Status";
import { useCatalogHistory } from "@/features/catalogs/api/get-catalog-history";
import type { CatalogHistoryEntry } from "@/features/catalogs/types";
import { formatDateTime } from "@/lib/format";

function who(e: CatalogHistoryEntry): string {
  return e.actor ?? e.username ?? e.user ?? e.changed_by ?? "—";
}

function what(e: CatalogHistoryEntry): string {
  if (e.summary) return e.summary;
  const fields = e.changed_fields ?? (Array.isArray(e.changes) ? (e.changes as string[]) : e.changes && typeof e.changes === "object" ? Object.keys(e.changes) : []);
  return fields.length ? `changed ${fields.join(", ")}` : "";
}

/** The catalog's change history, newest first. */
export function CatalogHistory({ team, name }: { team: string; name: string }) {
  const q = useCatalogHistory(team, name);
  return (
    <section className="card" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {q.isPending ? (
        <Loading label="Loading history…" />
      ) : q.error ? (
        <ErrorBox error={q.error} title="Could not load the history" onRetry={() => q.refetch()} />
      ) : q.data.length === 0 ? (
        <p className="muted">No changes recorded.</p>
      ) : (
        <ol className="history" data-testid="catalog-history">
          {q.data.map((e, i) => (
            <li key={e.id ?? i}>
              <span className={`badge action-${e.action ?? "change"}`}>{e.action ?? "change"}</span>{" "}
              {e.version !== undefined && <span className="muted">v{e.version} · </span>}
              <strong>{who(e)}</strong> · {formatDateTime(e.time ?? e.timestamp ?? e.created_at)}
              {what(e) && <div className="muted">{what(e)}</div>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
