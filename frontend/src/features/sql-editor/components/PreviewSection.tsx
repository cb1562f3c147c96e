import { useEffect, useState } from "react";

import { ResultView } from "@/components/ResultView";
import { ErrorBox } from "@/components/Status";
import type { PreviewResult } from "@/features/sql-editor/types";
import { formatDuration } from "@/lib/format";

type Props = {
  /** The preview mutation (usePreview). */
  preview: { isPending: boolean; data: PreviewResult | undefined; error: Error | null };
  /** performance.now() when the preview was sent, and how long it took once it answered. */
  started: number | null;
  ms: number | null;
};

/** The preview's rows (or its error), with a running clock while Spark works; nothing before the first preview. */
export function PreviewSection({ preview, started, ms }: Props) {
  if (!(preview.isPending || preview.data || preview.error)) return null;
  return (
    <section className="card" aria-labelledby="preview-title">
      <h2 id="preview-title">
        Preview {ms !== null && <span className="muted small">· {formatDuration(ms)}</span>}
      </h2>
      {preview.isPending ? (
        <PreviewClock started={started} />
      ) : preview.error ? (
        <ErrorBox error={preview.error} title="Preview failed" />
      ) : preview.data ? (
        <>
          {preview.data.streaming && (
            <p className="muted small">A batch over the newest records of each stream; the watermark and EMIT are ignored and nothing is written.</p>
          )}
          <ResultView result={preview.data} caption="Preview rows" />
        </>
      ) : null}
    </section>
  );
}

function PreviewClock({ started }: { started: number | null }) {
  const [now, setNow] = useState(() => performance.now());
  useEffect(() => {
    const id = window.setInterval(() => setNow(performance.now()), 250);
    return () => window.clearInterval(id);
  }, []);
  return (
    <div className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      Running on Spark… {started !== null && formatDuration(now - started)}
    </div>
  );
}
