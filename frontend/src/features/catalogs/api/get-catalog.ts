import { useQuery } from "@tanstack/react-query";

import { apiRequest } from "@/lib/api-client";
import type { Catalog } from "@/features/catalogs/types";

export type CatalogWithEtag = { catalog: Catalog; etag: string | null };

export async function getCatalog(team: string, name: string): Promise<CatalogWithEtag> {
  const res = await apiRequest<Catalog>(`teams/${encodeURIComponent(team)}/catalogs/${encodeURIComponent(name)}/`);
  return { catalog: res.data, etag: res.headers.get("ETag") };
}

export function useCatalog(team: string, name: string | undefined) {
  return useQuery({
    queryKey: ["catalogs", team, "detail", name],
    queryFn: () => getCatalog(team, name!),
    enabled: !!name,
    staleTime: 0,
  });
}
