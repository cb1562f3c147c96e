import { useState } from "react";

import { numericColumns, ResultChart } from "@/components/ResultChart";
import { ResultGrid, type ResultSet } from "@/components/ResultGrid";

/** A query result with a Table / Chart switch (the chart only when a column is numeric). */
export function ResultView({ result, caption }: { result: ResultSet; caption?: string }) {
  const [view, setView] = useState<"table" | "chart">("table");
  const chartable = result.rows.length > 0 && numericColumns(result).length > 0;
  return (
    <section className="result-view" aria-label={caption ?? "Result"}>
      {chartable && (
        <div className="tabs" role="tablist" aria-label="Result view">
          <button type="button" role="tab" aria-selected={view === "table"} className="tab" onClick={() => setView("table")}>
            Table
          </button>
          <button type="button" role="tab" aria-selected={view === "chart"} className="tab" onClick={() => setView("chart")}>
            Chart
          </button>
        </div>
      )}
      {view === "chart" && chartable ? <ResultChart result={result} /> : <ResultGrid result={result} caption={caption} />}
    </section>
  );
}
