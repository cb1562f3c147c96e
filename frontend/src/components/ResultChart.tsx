import { useId, useMemo, useState } from "react";

import type { ResultSet } from "@/components/ResultGrid";

const NUMERIC_TYPE = /^(tinyint|smallint|int|integer|bigint|long|short|byte|float|double|real|decimal|numeric)/i;
const MAX_POINTS = 200;

/** Indexes of the columns a chart can plot: numeric by type, or holding only numbers. */
export function numericColumns(result: ResultSet): number[] {
  return result.columns
    .map((c, i) => {
      if (c.type && NUMERIC_TYPE.test(c.type)) return i;
      const values = result.rows.map((r) => r[i]).filter((v) => v !== null && v !== undefined);
      return values.length > 0 && values.every((v) => typeof v === "number") ? i : -1;
    })
    .filter((i) => i >= 0);
}

/** A small hand-written SVG bar or line chart of one numeric column against a label column. */
export function ResultChart({ result }: { result: ResultSet }) {
  const id = useId();
  const numeric = useMemo(() => numericColumns(result), [result]);
  const labelCandidates = result.columns.map((_, i) => i).filter((i) => !numeric.includes(i));
  const [kind, setKind] = useState<"bar" | "line">("bar");
  const [valueCol, setValueCol] = useState<number>(numeric[0] ?? -1);
  const [labelCol, setLabelCol] = useState<number>(labelCandidates[0] ?? -1);

  if (numeric.length === 0) return <p className="muted">No numeric column to chart.</p>;
  const rows = result.rows.slice(0, MAX_POINTS);
  const values = rows.map((r) => Number(r[valueCol] ?? 0));
  const labels = rows.map((r, i) => (labelCol >= 0 ? String(r[labelCol] ?? "NULL") : String(i + 1)));
  const max = Math.max(0, ...values);
  const min = Math.min(0, ...values);
  const span = max - min || 1;
  const W = 640;
  const H = 280;
  const pad = { l: 56, r: 12, t: 12, b: 56 };
  const iw = W - pad.l - pad.r;
  const ih = H - pad.t - pad.b;
  const y = (v: number) => pad.t + ih - ((v - min) / span) * ih;
  const step = iw / Math.max(values.length, 1);
  const x = (i: number) => pad.l + step * i + step / 2;
  const ticks = [min, min + span / 2, max];
  const labelEvery = Math.ceil(values.length / 12);

  return (
    <div className="chart">
      <div className="chart-controls">
        <fieldset className="segmented">
          <legend className="sr-only">Chart type</legend>
          {(["bar", "line"] as const).map((k) => (
            <label key={k}>
              <input type="radio" name={`${id}-kind`} checked={kind === k} onChange={() => setKind(k)} />
              {k === "bar" ? "Bar" : "Line"}
            </label>
          ))}
        </fieldset>
        <label>
          Value{" "}
          <select value={valueCol} onChange={(e) => setValueCol(Number(e.target.value))}>
            {numeric.map((i) => (
              <option key={i} value={i}>
                {result.columns[i].name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Label{" "}
          <select value={labelCol} onChange={(e) => setLabelCol(Number(e.target.value))}>
            <option value={-1}>(row number)</option>
            {result.columns.map((c, i) => (
              <option key={i} value={i}>
                {c.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`${kind} chart of ${result.columns[valueCol]?.name}`}
        className="chart-svg"
        data-testid="result-chart"
      >
        {ticks.map((t) => (
          <g key={t}>
            <line x1={pad.l} x2={W - pad.r} y1={y(t)} y2={y(t)} className="chart-gridline" />
            <text x={pad.l - 6} y={y(t) + 4} textAnchor="end" className="chart-tick">
              {Number.isInteger(t) ? t : t.toFixed(2)}
            </text>
          </g>
        ))}
        {kind === "bar" &&
          values.map((v, i) => (
            <rect
              key={i}
              x={x(i) - Math.max(step * 0.35, 0.5)}
              width={Math.max(step * 0.7, 1)}
              y={Math.min(y(v), y(0))}
              height={Math.abs(y(v) - y(0))}
              className="chart-bar"
            >
              <title>{`${labels[i]}: ${v}`}</title>
            </rect>
          ))}
        {kind === "line" && (
          <polyline points={values.map((v, i) => `${x(i)},${y(v)}`).join(" ")} className="chart-line" />
        )}
        {kind === "line" &&
          values.map((v, i) => (
            <circle key={i} cx={x(i)} cy={y(v)} r={3} className="chart-dot">
              <title>{`${labels[i]}: ${v}`}</title>
            </circle>
          ))}
        {labels.map((l, i) =>
          i % labelEvery === 0 ? (
            <text key={i} x={x(i)} y={H - pad.b + 16} textAnchor="end" transform={`rotate(-35 ${x(i)} ${H - pad.b + 16})`} className="chart-tick">
              {l.length > 14 ? `${l.slice(0, 13)}…` : l}
            </text>
          ) : null,
        )}
      </svg>
      {result.rows.length > MAX_POINTS && <p className="muted">Charting the first {MAX_POINTS} rows.</p>}
    </div>
  );
}
