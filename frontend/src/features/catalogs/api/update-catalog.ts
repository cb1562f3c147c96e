import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiRequest } from "@/lib/api-client";
import type { Catalog, CatalogInput } from "@/features/catalogs/types";
import { invalidateCatalogs } from "@/lib/queries/catalogs";

export type UpdateCatalogInput = { name: string; input: Omit<CatalogInput, "catalog_name">; ifMatch: string | null };

/** PUT with If-Match: a stale version answers 412 instead of overwriting someone else's change. */
export async function updateCatalog(team: string, { name, input, ifMatch }: UpdateCatalogInput): Promise<Catalog> {
  const headers: Record<string, string> = ifMatch ? { "If-Match": ifMatch } : {};
  const res = await apiRequest<Catalog>(`teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(name)}/`, {
    method: "PUT",
    body: { catalog_name: name, ...input },
    headers,
  });
  return res.data;
}

export function useUpdateCatalog(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: UpdateCatalogInput) => updateCatalog(team, v),
    // a changed configuration can change what the tree and completion see
    onSuccess: () => invalidateCatalogs(qc, team),
  });
}
