import { useMemo, useState } from "react";

export type ResultColumn = { name: string; type?: string };
export type ResultSet = { columns: ResultColumn[]; rows: unknown[][]; truncated?: boolean };

const MAX_ROWS = 1000;

function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  const na = Number(a);
  const nb = Number(b);
  if (typeof a !== "boolean" && !Number.isNaN(na) && !Number.isNaN(nb) && a !== "" && b !== "") return na - nb;
  return String(a).localeCompare(String(b));
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Query results as a table: the first 1,000 rows, sortable by clicking a column header. */
export function ResultGrid({ result, caption }: { result: ResultSet; caption?: string }) {
  const [sort, setSort] = useState<{ col: number; dir: 1 | -1 } | null>(null);
  const rows = useMemo(() => {
    const first = result.rows.slice(0, MAX_ROWS);
    if (!sort) return first;
    return [...first].sort((x, y) => sort.dir * compare(x[sort.col], y[sort.col]));
  }, [result.rows, sort]);
  const toggle = (col: number) =>
    setSort((s) => (s && s.col === col ? (s.dir === 1 ? { col, dir: -1 } : null) : { col, dir: 1 }));
  return (
    <div className="result">
      <p className="muted result-meta">
        {result.rows.length === 0
          ? "No rows."
          : `${Math.min(result.rows.length, MAX_ROWS).toLocaleString()} row${result.rows.length === 1 ? "" : "s"}`}
        {(result.truncated || result.rows.length > MAX_ROWS) && " (showing the first rows only)"}
      </p>
      <div className="grid-scroll" tabIndex={0} aria-label={caption ?? "Result rows"}>
        <table className="grid" data-testid="result-grid">
          {caption && <caption className="sr-only">{caption}</caption>}
          <thead>
            <tr>
              {result.columns.map((c, i) => (
                <th
                  key={`${c.name}-${i}`}
                  scope="col"
                  aria-sort={sort?.col === i ? (sort.dir === 1 ? "ascending" : "descending") : "none"}
                >
                  <button type="button" className="th-sort" onClick={() => toggle(i)}>
                    {c.name}
                    {c.type && <span className="col-type">{c.type}</span>}
                    <span aria-hidden="true">{sort?.col === i ? (sort.dir === 1 ? " ▲" : " ▼") : ""}</span>
                  </button>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, ri) => (
              <tr key={ri}>
                {r.map((v, ci) => (
                  <td key={ci} className={v === null || v === undefined ? "null" : typeof v === "number" ? "num" : ""}>
                    {cell(v)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
