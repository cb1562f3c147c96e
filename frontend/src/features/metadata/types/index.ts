// Shapes of the metadata endpoints under /api/v1/teams/{team}/catalogs/{name}/databases/…

export type CatalogRef = { catalog_name: string; catalog_type: string };
export type TableSummary = { name: string; kind?: string };
export type ColumnInfo = { name: string; type: string; nullable?: boolean; comment?: string | null };
export type TableDetail = {
  database?: string;
  name: string;
  columns: ColumnInfo[];
  partition_columns?: string[];
  kind?: string;
  location?: string | null;
  version?: number | null;
  row_count?: number | null;
  properties?: Record<string, string>;
};

/** The API may answer a bare list, a page, or `{databases|tables: […]}`; names may be strings or objects. */
export function namesOf(data: unknown, key: string): { name: string; kind?: string }[] {
  let list: unknown = data;
  if (list && typeof list === "object" && !Array.isArray(list)) {
    const o = list as Record<string, unknown>;
    list = o[key] ?? o.results ?? [];
  }
  if (!Array.isArray(list)) return [];
  return list.map((x) => (typeof x === "string" ? { name: x } : (x as { name: string; kind?: string })));
}

/** `POST …/tables/{table}/sample/`: the newest records of a stream table, oldest first. */
export type TableSample = { columns: { name: string; type: string }[]; rows: unknown[][]; schema: "declared" | "inferred" };
