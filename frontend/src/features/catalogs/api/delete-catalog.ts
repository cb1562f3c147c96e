import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiRequest } from "@/lib/api-client";
import { invalidateCatalogs } from "@/lib/queries/catalogs";

export async function deleteCatalog(team: string, name: string, ifMatch: string | null): Promise<void> {
  await apiRequest<null>(`teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(name)}/`, {
    method: "DELETE",
    headers: ifMatch ? { "If-Match": ifMatch } : {},
  });
}

export function useDeleteCatalog(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ name, ifMatch }: { name: string; ifMatch: string | null }) => deleteCatalog(team, name, ifMatch),
    // mark stale without refetching: the page still showing the deleted catalog must not ask for it again
    onSuccess: () => invalidateCatalogs(qc, team, { refetch: false }),
  });
}
