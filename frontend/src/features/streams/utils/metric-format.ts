// Numbers of a streaming job's metrics as the page shows them, and the metric rows turned into chart columns.

import type { StreamMetric } from "@/features/streams/types";

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });

/** 0, 0.4, 12.5, 980, 1.2K, 3.4M; an em dash when unknown. */
export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  if (Math.abs(value) >= 1000) return compact.format(value);
  if (Number.isInteger(value)) return String(value);
  return String(Math.round(value * 10) / 10);
}

/** "12.5 rows/s". */
export function formatRate(value: number | null | undefined): string {
  const n = formatNumber(value);
  return n === "—" ? n : `${n} rows/s`;
}

/** 512 B, 40 KiB, 3.2 MiB, 1.1 GiB. */
export function formatBytes(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "—";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = value;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i += 1;
  }
  return i === 0 ? `${v} B` : `${v >= 100 ? Math.round(v) : Math.round(v * 10) / 10} ${units[i]}`;
}

/** "0 records", "1 record", "12.3K records"; "unknown" when the sources do not report it. */
export function formatLag(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "unknown";
  return value === 1 ? "1 record" : `${formatNumber(value)} records`;
}

/** How far an event time is behind `now`: "4 s", "2 min 05 s", "3 h 10 min". */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${String(m % 60).padStart(2, "0")} min`;
}

/** The watermark as a UTC time with how far it is behind now, or a note that there is none. */
export function formatWatermark(watermark: string | null | undefined, now: number = Date.now()): string {
  if (!watermark) return "none (no event-time watermark)";
  const t = new Date(watermark).getTime();
  if (Number.isNaN(t)) return watermark;
  const time = new Date(t).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z").replace(/Z$/, " UTC");
  return `${time} (${formatAge(now - t)} behind now)`;
}

/** Chart columns: x in Unix seconds (uPlot's time axis) and one array per metric, null where a batch lacks it. */
export type MetricColumns = {
  xs: number[];
  rowsIn: (number | null)[];
  rowsProcessed: (number | null)[];
  rowsOut: (number | null)[];
  durationMs: (number | null)[];
  stateRows: (number | null)[];
  lag: (number | null)[];
};

const num = (v: number | null | undefined): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** Turn metric rows (oldest first) into chart columns, dropping rows with an unreadable time and keeping x sorted. */
export function metricColumns(metrics: readonly StreamMetric[]): MetricColumns {
  const rows = metrics
    .map((m) => ({ m, t: new Date(m.ts).getTime() }))
    .filter(({ t }) => !Number.isNaN(t))
    .sort((a, b) => a.t - b.t);
  return {
    xs: rows.map(({ t }) => t / 1000),
    rowsIn: rows.map(({ m }) => num(m.input_rows_per_second)),
    rowsProcessed: rows.map(({ m }) => num(m.processed_rows_per_second)),
    rowsOut: rows.map(({ m }) => num(m.output_rows_per_second)),
    durationMs: rows.map(({ m }) => num(m.duration_ms)),
    stateRows: rows.map(({ m }) => num(m.state_rows)),
    lag: rows.map(({ m }) => num(m.lag)),
  };
}

/** Time ranges offered above the charts (retention keeps 24 h by default). */
export const METRIC_RANGES = [
  { minutes: 5, label: "5 min" },
  { minutes: 15, label: "15 min" },
  { minutes: 60, label: "1 h" },
  { minutes: 360, label: "6 h" },
  { minutes: 1440, label: "24 h" },
] as const;

/** The `since` query parameter for the last `minutes` before `now`; no `until`, so a batch the server stamped a
 * little after the browser's clock still shows. */
export function rangeParams(minutes: number, now: number = Date.now()): { since: string } {
  return { since: new Date(now - minutes * 60_000).toISOString() };
}

/** The API returns at most this many points per request (the newest of the range, oldest first). */
export const METRICS_LIMIT = 2000;

const pad = (n: number) => String(n).padStart(2, "0");

/** A time-axis tick in local time: "18:04:30" when the chart spans at most an hour, else "18:04". */
export function timeTick(seconds: number, spanSeconds: number): string {
  const d = new Date(seconds * 1000);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return spanSeconds <= 3600 ? `${hm}:${pad(d.getSeconds())}` : hm;
}
