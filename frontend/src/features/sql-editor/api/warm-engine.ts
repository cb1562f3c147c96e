import { useEffect } from "react";

import { apiPost } from "@/lib/api-client";

/** Ask the server to start the team's engine now, so the editor's first validate or preview finds it running
 * (the server asks at most once a minute per team; `requested` is false when it had asked already). */
export function warmEngine(team: string): Promise<{ requested: boolean }> {
  return apiPost<{ requested: boolean }>(`teams/${encodeURIComponent(team)}/engine/warm/`, {});
}

/** When the editor opens for a member who runs SQL: a warm-up that fails costs only speed, so it says nothing. */
export function useWarmEngine(team: string, enabled: boolean): void {
  useEffect(() => {
    if (enabled && team) warmEngine(team).catch(() => undefined);
  }, [team, enabled]);
}
