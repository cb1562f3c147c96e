import { useState } from "react";

import { useStartLivePreview } from "@/features/sql-editor/api/live-preview";

/** "Live": starts a short streaming query over the script's sources; `liveId` names the one whose rows show
 * (its panel polls them: LivePreviewPanel). */
export function useLivePreviewSession(team: string) {
  const startLive = useStartLivePreview(team);
  const [liveId, setLiveId] = useState<string | null>(null);

  const start = (sql: string, defaultCatalog: string) => {
    setLiveId(null);
    startLive.mutate({ sql, defaultCatalog }, { onSuccess: (p) => setLiveId(p.id) });
  };
  const reset = () => {
    startLive.reset();
    setLiveId(null);
  };

  return { startLive, liveId, start, reset };
}
