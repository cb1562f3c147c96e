import { useEffect, useRef, useState } from "react";

import { getRunLog } from "@/features/runs/api/get-run-log";
import type { LogLine } from "@/features/runs/types";

/** The run's log, fetched incrementally (?offset=N) every second while the run is live, once more at the end. */
export function useRunLog(team: string, id: string, live: boolean) {
  const [lines, setLines] = useState<LogLine[]>([]);
  const [error, setError] = useState<unknown>(null);
  const log = `${team}/${id}`;
  // where the next read starts, for the log it belongs to (another run starts from 0)
  const offset = useRef({ log, next: 0 });
  // another run's log starts empty (adjusted while rendering, React's way for state that follows a prop)
  const [linesOf, setLinesOf] = useState(log);
  if (linesOf !== log) {
    setLinesOf(log);
    setLines([]);
  }

  useEffect(() => {
    const ctrl = new AbortController();
    let timer: number | undefined;
    let stopped = false;
    if (offset.current.log !== log) offset.current = { log, next: 0 };
    const poll = async () => {
      try {
        // drain what is there, then wait for more
        for (let i = 0; i < 20 && !stopped; i++) {
          const chunk = await getRunLog(team, id, offset.current.next, ctrl.signal);
          if (stopped) return;
          setError(null);
          if (chunk.lines.length === 0) break;
          offset.current.next = chunk.next_offset;
          setLines((old) => [...old, ...chunk.lines]);
        }
      } catch (e) {
        if ((e as Error).name === "AbortError") return;
        setError(e);
      }
      if (live && !stopped) timer = window.setTimeout(poll, 1000);
    };
    poll();
    return () => {
      stopped = true;
      ctrl.abort();
      window.clearTimeout(timer);
    };
  }, [team, id, live, log]);

  return { lines, error };
}
