import { useQuery } from "@tanstack/react-query";
import { ErrorBox, Loading } from "@/components/Status";
import type { CatalogHistoryEntry } from "@/features/catalogs/types";
import { formatDateTime } from "@/lib/format";
import { catalogHistoryQuery } from "@/lib/queries/catalogs";

function brief(v: unknown): string {
  if (v === null || v === undefined || v === "") return "∅";
  const s = typeof v === "object" ? JSON.stringify(v) : String(v);
  return s.length > 60 ? `${s.slice(0, 59)}…` : s;
}

/** One line per changed field: `configuration.base-url: a → b`; secrets only say that they changed. */
function what(e: CatalogHistoryEntry): string[] {
  return Object.entries(e.changes).map(([field, c]) => {
    if (c && typeof c === "object" && "from" in c && "to" in c) {
      const { from, to } = c as { from: unknown; to: unknown };
      return `${field}: ${brief(from)} → ${brief(to)}`;
    }
    return typeof c === "string" ? `${field}: ${c}` : `${field} changed`;
  });
}

/** The catalog's change history, newest first. */
export function CatalogHistory({ team, name }: { team: string; name: string }) {
  const q = useQuery(catalogHistoryQuery(team, name));
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
            <li key={i}>
              <span className={`badge action-${e.action}`}>{e.action}</span>{" "}
              <span className="muted">v{e.version} · </span>
              <strong>{e.actor}</strong> · {formatDateTime(e.time)}
              {what(e).length > 0 && (
                <ul className="history-changes muted">
                  {what(e).map((line) => (
                    <li key={line} className="mono small">{line}</li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
