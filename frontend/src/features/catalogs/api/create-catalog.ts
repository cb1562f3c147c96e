import { useMutation, useQueryClient } from "@tanstack/react-query";

import { apiPost } from "@/lib/api-client";
import type { Catalog, CatalogInput } from "@/features/catalogs/types";
import { invalidateCatalogs } from "@/lib/queries/catalogs";

export function createCatalog(team: string, input: CatalogInput): Promise<Catalog> {
  return apiPost<Catalog>(`teams/${encodeURIComponent(team)}/catalogs/`, input);
}

export function useCreateCatalog(team: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: CatalogInput) => createCatalog(team, input),
    // lists, the metadata tree and SQL completion all name catalogs
    onSuccess: () => invalidateCatalogs(qc, team),
  });
}
