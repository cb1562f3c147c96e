import { useEffect, useRef, useState } from "react";

import { ErrorBox } from "@/components/Status";
import { useRunLog } from "@/features/runs/hooks/use-run-log";

/** The run's log as it grows; follows the end unless the reader turns that off. */
export function RunLog({ team, runId, live }: { team: string; runId: string; live: boolean }) {
  const { lines, error } = useRunLog(team, runId, live);
  const [follow, setFollow] = useState(true);
  const box = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (follow && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines, follow]);
  return (
    <section className="card" aria-labelledby="log-title">
      <div className="section-head">
        <h2 id="log-title">Log</h2>
        <label className="inline">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.target.checked)} /> Follow
        </label>
      </div>
      {error ? <ErrorBox error={error} title="Could not load the log" /> : null}
      <pre className="log" ref={box} tabIndex={0} aria-label="Run log" data-testid="run-log">
        {lines.length === 0 ? (live ? "Waiting for output…" : "No log output.") : null}
        {lines.map((l) => (
          <div key={l.seq} className={`log-line level-${l.level.toLowerCase()}`}>
            <span className="log-ts">{new Date(l.ts).toLocaleTimeString()} </span>
            {l.level !== "INFO" && <span className="log-level">{l.level} </span>}
            {l.message}
          </div>
        ))}
      </pre>
    </section>
  );
}
