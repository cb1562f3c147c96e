import type { QueryClient } from "@tanstack/react-query";

import { accessKeys } from "@/features/permissions/api/keys";
import { invalidateCatalogs } from "@/lib/queries/catalogs";

/** After a grant, a revoke, a group change or a row filter / mask change: the team's grants and groups, and what the catalogs list, the
 * metadata tree and the catalog history show (a grant can govern a catalog and hide what it holds). */
export function invalidateAccess(qc: QueryClient, team: string): void {
  void qc.invalidateQueries({ queryKey: accessKeys.all(team) });
  invalidateCatalogs(qc, team);
}
