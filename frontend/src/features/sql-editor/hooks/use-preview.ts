import { useState } from "react";

import { usePreviewSql } from "@/features/sql-editor/api/preview-sql";

/** Preview (up to 1,000 rows, nothing written) with the time it took: `started` while it runs, `ms` once done. */
export function usePreview(team: string) {
  const preview = usePreviewSql(team);
  const [started, setStarted] = useState<number | null>(null);
  const [ms, setMs] = useState<number | null>(null);

  const start = (sql: string, job: number | null, defaultCatalog: string, consistent = false) => {
    const t0 = performance.now();
    setStarted(t0);
    setMs(null);
    preview.mutate({ sql, job, defaultCatalog, consistent }, { onSettled: () => setMs(performance.now() - t0) });
  };

  return { preview, started, ms, start };
}
