// Alert channels and rules of a team: one key layout, so a page that changes a channel (the alerts page, later a
// job page's "alert me" shortcut) refreshes every view of them.
import type { QueryClient } from "@tanstack/react-query";

export const alertKeys = {
  all: (team: string) => ["alerts", team] as const,
  channels: (team: string) => ["alerts", team, "channels"] as const,
  rules: (team: string) => ["alerts", team, "rules"] as const,
};

/** After a channel or rule was created, changed, deleted or tested. */
export function invalidateAlerts(qc: QueryClient, team: string): void {
  void qc.invalidateQueries({ queryKey: alertKeys.all(team) });
}
