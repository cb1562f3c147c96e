import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";

import { fetchCatalogNames, fetchColumns, fetchTableNames } from "@/features/sql-editor/api/get-completion-metadata";
import { catalogNamesQuery } from "@/lib/queries/catalogs";
import { tableQuery, tablesQuery, type TableDetail, type TableSummary } from "@/lib/queries/metadata";

// Completion reads the cache entries the metadata browser and the catalog picker fill: what they loaded is
// completed without a request (a request would fail here: there is no server).
describe("completion metadata", () => {
  it("uses the catalog names the picker loaded", async () => {
    const qc = new QueryClient();
    qc.setQueryData(catalogNamesQuery("acme").queryKey, [{ catalog_name: "pg", catalog_type: "jdbc" }]);
    expect(await fetchCatalogNames(qc, "acme")).toEqual([{ catalog_name: "pg", catalog_type: "jdbc" }]);
  });

  it("uses the tables and columns the browser loaded", async () => {
    const qc = new QueryClient();
    qc.setQueryData(tablesQuery("acme", "pg", "shop").queryKey, [{ name: "orders" }, { name: "items" }] as TableSummary[]);
    qc.setQueryData(tableQuery("acme", "pg", "shop", "orders").queryKey, { columns: [{ name: "id", type: "bigint" }] } as TableDetail);
    expect(await fetchTableNames(qc, "acme", "pg", "shop")).toEqual(["orders", "items"]);
    expect(await fetchColumns(qc, "acme", "pg", "shop", "orders")).toEqual([{ name: "id", type: "bigint" }]);
  });
});
