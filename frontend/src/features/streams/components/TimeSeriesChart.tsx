import { useEffect, useLayoutEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

import { formatNumber, timeTick } from "@/features/streams/utils/metric-format";

export type ChartSeries = { label: string; color: string; values: (number | null)[]; format?: (v: number | null) => string };

type Props = {
  /** Stable id: names the figure for tests and labels. */
  id: string;
  title: string;
  xs: number[];
  series: ChartSeries[];
  height?: number;
  /** Y-axis labels (default: compact numbers). */
  axisFormat?: (v: number) => string;
};

const fmt = (s: ChartSeries) => (v: number | null | undefined) => (s.format ?? formatNumber)(v ?? null);

/** A live line chart over time (uPlot on a canvas). Created once per series set; new points go in with setData,
 * so a 2 s refresh redraws without rebuilding the chart or losing the legend's hover state. */
export function TimeSeriesChart({ id, title, xs, series, height = 180, axisFormat = formatNumber }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const labels = series.map((s) => s.label).join("|");
  const data = [xs, ...series.map((s) => s.values)] as uPlot.AlignedData;
  const dataRef = useRef(data);
  useLayoutEffect(() => {
    dataRef.current = data;
  });

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [
        {
          stroke: "#5b6b7f", grid: { stroke: "#eef1f5" }, space: 70,
          // one line of local time (uPlot's default adds a second, date line that crowds narrow charts)
          values: (u, splits) => splits.map((v) => timeTick(v, (u.scales.x.max ?? 0) - (u.scales.x.min ?? 0))),
        },
        { stroke: "#5b6b7f", grid: { stroke: "#eef1f5" }, size: 56, values: (_u, splits) => splits.map((v) => axisFormat(v)) },
      ],
      series: [
        {},
        ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: true, points: { size: 4 }, value: (_u: uPlot, v: number | null) => fmt(s)(v) })),
      ],
    };
    const u = new uPlot(opts, dataRef.current, el);
    plot.current = u;
    // follow the container's width (the page reflows on narrow screens)
    const ro = new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      u.destroy();
      plot.current = null;
    };
    // series styling is fixed per chart; only a different set of series rebuilds it
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [labels, height]);

  useEffect(() => {
    plot.current?.setData(data);
  });

  const latest = series
    .map((s) => `${s.label} ${fmt(s)(s.values.length ? s.values[s.values.length - 1] : null)}`)
    .join(", ");
  return (
    <figure className="stream-chart" data-testid={`stream-chart-${id}`} data-points={xs.length} aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      <div ref={host} className="stream-chart-canvas" role="img"
           aria-label={xs.length ? `${title}: ${xs.length} batches; latest ${latest}` : `${title}: no batches in this range`} />
      {xs.length === 0 ? (
        <p className="muted stream-chart-empty">No batches in this range yet.</p>
      ) : series.every((s) => s.values.every((v) => v === null)) ? (
        <p className="muted stream-chart-empty">Not reported by this job's batches.</p>
      ) : null}
    </figure>
  );
}
