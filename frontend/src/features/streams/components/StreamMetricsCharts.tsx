import { useState } from "react";

import { ErrorBox, Loading } from "@/components/Status";
import { useStreamMetrics } from "@/features/streams/api/get-stream-metrics";
import { TimeSeriesChart } from "@/features/streams/components/TimeSeriesChart";
import { formatDuration } from "@/lib/format";
import { formatNumber, formatRate, METRIC_RANGES, METRICS_LIMIT, metricColumns } from "@/features/streams/utils/metric-format";

type Props = { team: string; jobId: number | string; live: boolean };

/** Rows/s in and out, batch duration, state rows and lag over a chosen time range; refreshed every 2 s while the
 * job runs. */
export function StreamMetricsCharts({ team, jobId, live }: Props) {
  const [minutes, setMinutes] = useState(15);
  const q = useStreamMetrics(team, jobId, minutes, live);
  const rows = q.data?.results ?? [];
  const c = metricColumns(rows);
  return (
    <section className="card" aria-label="Stream metrics">
      <div className="stream-charts-head">
        <h2 style={{ margin: 0 }}>Metrics</h2>
        <div className="field field-inline" style={{ marginBottom: 0 }}>
          <label htmlFor="stream-range">Range</label>
          <select id="stream-range" value={minutes} onChange={(e) => setMinutes(Number(e.target.value))}>
            {METRIC_RANGES.map((r) => (
              <option key={r.minutes} value={r.minutes}>Last {r.label}</option>
            ))}
          </select>
          <span className="muted" data-testid="stream-metrics-live">{live ? "live, every 2 s" : "not running"}</span>
        </div>
      </div>
      {q.isPending ? (
        <Loading label="Loading metrics…" />
      ) : q.error ? (
        <ErrorBox error={q.error} onRetry={() => q.refetch()} title="Metrics" />
      ) : (
        <>
          {rows.length >= METRICS_LIMIT && (
            <p className="muted">Showing the newest {METRICS_LIMIT} batches of this range; pick a shorter range to see all of it.</p>
          )}
          <div className="stream-charts">
            <TimeSeriesChart id="rows" title="Rows per second" xs={c.xs} series={[
              { label: "in", color: "#1e63c7", values: c.rowsIn, format: formatRate },
              { label: "processed", color: "#8a63c7", values: c.rowsProcessed, format: formatRate },
              { label: "out", color: "#1b7a3d", values: c.rowsOut, format: formatRate },
            ]} />
            <TimeSeriesChart id="duration" title="Batch duration" xs={c.xs} axisFormat={formatDuration} series={[
              { label: "duration", color: "#9a6200", values: c.durationMs, format: formatDuration },
            ]} />
            <TimeSeriesChart id="state" title="State rows" xs={c.xs} series={[
              { label: "state rows", color: "#33506f", values: c.stateRows, format: formatNumber },
            ]} />
            <TimeSeriesChart id="lag" title="Source lag (records)" xs={c.xs} series={[
              { label: "lag", color: "#b3261e", values: c.lag, format: formatNumber },
            ]} />
          </div>
        </>
      )}
    </section>
  );
}
