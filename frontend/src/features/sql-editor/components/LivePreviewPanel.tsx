import { ResultView } from "@/components/ResultView";
import { ErrorBox } from "@/components/Status";
import { isLive, useLivePreview, useStopLivePreview } from "@/features/sql-editor/api/live-preview";

const REASONS: Record<string, string> = {
  seconds: "stopped after its time limit",
  rows: "stopped after its row limit",
  cancelled: "stopped",
  failed: "failed",
};

/** Rows of a live preview as they arrive (polled), its status, and a Stop button while it runs. */
export function LivePreviewPanel({ team, id }: { team: string; id: string }) {
  const live = useLivePreview(team, id);
  const stop = useStopLivePreview(team);
  const data = live.data;
  const running = isLive(data) || !data;
  return (
    <section className="card" aria-labelledby="live-title" data-testid="live-preview">
      <h2 id="live-title">
        Live preview{" "}
        <span className="muted small" data-testid="live-status">
          · {!data ? "starting…" : data.status === "STARTING" ? "starting the query…" : data.status === "RUNNING" ? "running" : REASONS[data.stopped ?? ""] ?? data.status.toLowerCase()}
          {data && <> · {data.rows.length} row{data.rows.length === 1 ? "" : "s"}</>}
        </span>
      </h2>
      {data && (
        <p className="muted small">
          The query reads the streams (never the sink) for at most {data.seconds} s or {data.max_rows} rows, then stops by itself.
          Aggregations show each group's updated value.
        </p>
      )}
      {running && (
        <button type="button" className="btn" onClick={() => stop.mutate({ id }, { onSettled: () => live.refetch() })} disabled={stop.isPending}>
          {stop.isPending ? "Stopping…" : "Stop"}
        </button>
      )}
      {live.error && <ErrorBox error={live.error} title="Live preview unavailable" />}
      {data?.error && <ErrorBox error={new Error(data.error.message)} title="Live preview failed" />}
      {data && data.columns.length > 0 && <ResultView result={{ columns: data.columns, rows: data.rows }} caption="Live rows" />}
    </section>
  );
}
