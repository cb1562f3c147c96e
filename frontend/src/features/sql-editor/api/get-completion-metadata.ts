// Metadata for SQL completion, fetched on demand while the user types through the same query options (and so
// the same cache entries) as the metadata browser and the default-catalog picker (lib/queries).
import type { QueryClient } from "@tanstack/react-query";

import { catalogNamesQuery, type CatalogRef } from "@/lib/queries/catalogs";
import { databasesQuery, tableQuery, tablesQuery, type TableDetail } from "@/lib/queries/metadata";

export function fetchCatalogNames(qc: QueryClient, team: string): Promise<CatalogRef[]> {
  return qc.fetchQuery(catalogNamesQuery(team));
}

export function fetchDatabaseNames(qc: QueryClient, team: string, catalog: string): Promise<string[]> {
  return qc.fetchQuery(databasesQuery(team, catalog));
}

export async function fetchTableNames(qc: QueryClient, team: string, catalog: string, database: string): Promise<string[]> {
  return (await qc.fetchQuery(tablesQuery(team, catalog, database))).map((x) => x.name);
}

export type ColumnMeta = Pick<TableDetail["columns"][number], "name" | "type">;

export async function fetchColumns(qc: QueryClient, team: string, catalog: string, database: string, table: string): Promise<ColumnMeta[]> {
  return (await qc.fetchQuery(tableQuery(team, catalog, database, table))).columns;
}
