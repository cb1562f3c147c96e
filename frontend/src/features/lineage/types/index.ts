export type LineageDataset = {
  id: number;
  name: string;
  aliases: string[];
  namespace: string;
  physical_name: string;
  kind: string;
  depth?: number;
};

export type LineageJob = { id: number; name: string };

export type LineageEdge = { job: number; dataset: number; direction: "in" | "out"; last_run: number | null; last_status: string };

export type LineageGraph = { start: number; direction: string; depth: number; datasets: LineageDataset[]; jobs: LineageJob[]; edges: LineageEdge[] };

export type DatasetDetail = LineageDataset & { columns: string[]; writers: LineageJob[]; readers: LineageJob[] };

export type ColumnStep = {
  dataset: string;
  dataset_id: number;
  column: string;
  input_dataset: string;
  input_dataset_id: number;
  input_column: string;
  kind: "identity" | "expression" | "aggregation";
  job: LineageJob;
  depth: number;
};

export type ColumnLineage = { dataset: LineageDataset; column: string; edges: ColumnStep[] };
