import { useQuery } from "@tanstack/react-query";

import { apiGet } from "@/lib/api-client";
import type { ColumnLineage, Dataset, DatasetDetail, LineageGraph } from "@/features/lineage/types";

const base = (team: string) => `teams/${encodeURIComponent(team)}/lineage`;

/** The team's dataset with this catalog name (`pg_sales.shop.orders`), if any run touched it. */
export function useDatasetByName(team: string, name: string | null) {
  return useQuery({
    queryKey: ["lineage", team, "by-name", name],
    queryFn: () => apiGet<Dataset[]>(`${base(team)}/datasets/?name=${encodeURIComponent(name ?? "")}`),
    enabled: !!name,
  });
}

export function useDataset(team: string, id: number | null) {
  return useQuery({
    queryKey: ["lineage", team, "dataset", id],
    queryFn: () => apiGet<DatasetDetail>(`${base(team)}/datasets/${id}/`),
    enabled: id !== null,
  });
}

/** Up- or downstream of a dataset, `depth` job hops. */
export function useLineageGraph(team: string, id: number | null, direction: "upstream" | "downstream", depth: number) {
  return useQuery({
    queryKey: ["lineage", team, direction, id, depth],
    queryFn: () => apiGet<LineageGraph>(`${base(team)}/datasets/${id}/${direction}/?depth=${depth}`),
    enabled: id !== null,
  });
}

export function useColumnLineage(team: string, id: number | null, column: string | null) {
  return useQuery({
    queryKey: ["lineage", team, "column", id, column],
    queryFn: () => apiGet<ColumnLineage>(`${base(team)}/datasets/${id}/columns/${encodeURIComponent(column ?? "")}/`),
    enabled: id !== null && !!column,
  });
}
