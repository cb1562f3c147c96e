import { QueryClient } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";

import { catalogHistoryQuery, catalogKeys, catalogListQuery, catalogNamesQuery, catalogQuery, invalidateCatalogs } from "@/lib/queries/catalogs";
import { invalidateJobs, jobKeys, jobListQuery, jobQuery } from "@/lib/queries/jobs";
import { jobLineageQuery, lineageKeys, runLineageQuery } from "@/lib/queries/lineage";
import { materializedViewKeys, materializedViewsQuery, refreshHistoryQuery } from "@/lib/queries/materialized-views";
import { databasesQuery, metadataKeys, tableQuery, tablesQuery } from "@/lib/queries/metadata";
import { invalidateRuns, runKeys } from "@/lib/queries/runs";

type Key = readonly unknown[];

/** A client holding `keys` (each with some data), to see which of them an invalidation marks stale. */
function clientWith(keys: Key[]): QueryClient {
  const qc = new QueryClient();
  for (const key of keys) qc.setQueryData(key, ["x"]);
  return qc;
}
const stale = (qc: QueryClient, keys: Key[]) => keys.filter((k) => qc.getQueryState(k)?.isInvalidated);

describe("catalog and metadata queries", () => {
  const acme = [
    catalogListQuery("acme", { page: 2 }).queryKey,
    catalogNamesQuery("acme").queryKey,
    catalogQuery("acme", "pg").queryKey,
    catalogHistoryQuery("acme", "pg").queryKey,
    databasesQuery("acme", "pg").queryKey,
    tablesQuery("acme", "pg", "shop").queryKey,
    tableQuery("acme", "pg", "shop", "orders").queryKey,
  ];
  const others = [catalogNamesQuery("globex").queryKey, databasesQuery("globex", "pg").queryKey, jobListQuery("acme").queryKey];

  it("a catalog change marks every view of the team's catalogs and their metadata stale, and nothing else", () => {
    const qc = clientWith([...acme, ...others]);
    invalidateCatalogs(qc, "acme");
    expect(stale(qc, acme)).toEqual(acme);
    expect(stale(qc, others)).toEqual([]);
  });

  it("a deleted catalog only marks them (refetch: false)", () => {
    const qc = clientWith(acme);
    invalidateCatalogs(qc, "acme", { refetch: false });
    expect(stale(qc, acme)).toEqual(acme);
  });

  it("every key sits under its resource's prefix, so one invalidation reaches it", () => {
    for (const k of acme.slice(0, 4)) expect(k.slice(0, 2)).toEqual(catalogKeys.all("acme"));
    for (const k of acme.slice(4)) expect(k.slice(0, 3)).toEqual(metadataKeys.catalog("acme", "pg"));
  });

  it("the browser's filter prefix for a database finds its tables, not a neighbour's", () => {
    const qc = clientWith([tablesQuery("acme", "pg", "shop").queryKey, tablesQuery("acme", "pg", "shop2").queryKey, databasesQuery("acme", "pg").queryKey]);
    const found = qc.getQueriesData({ queryKey: metadataKeys.tables("acme", "pg", "shop") }).map(([k]) => k);
    expect(found).toEqual([tablesQuery("acme", "pg", "shop").queryKey]);
    expect(qc.getQueriesData({ queryKey: metadataKeys.catalog("acme", "pg") })).toHaveLength(3);
  });

  it("a disabled detail waits for a name", () => {
    expect(catalogQuery("acme", undefined).enabled).toBe(false);
    expect(catalogQuery("acme", "pg").enabled).toBe(true);
  });
});

describe("job, run and lineage queries", () => {
  it("a job's id from the URL (string) and from the API (number) name one cache entry", () => {
    expect(jobQuery("acme", "7").queryKey).toEqual(jobQuery("acme", 7).queryKey);
    expect(jobQuery("acme", 7).queryKey.slice(0, 2)).toEqual(jobKeys.all("acme"));
  });

  it("saving a job marks the list and the job's page stale, not runs or another team's jobs", () => {
    const keys = [jobListQuery("acme").queryKey, jobQuery("acme", 7).queryKey];
    const others = [jobListQuery("globex").queryKey, runKeys.list("acme", {}), catalogNamesQuery("acme").queryKey];
    const qc = clientWith([...keys, ...others]);
    invalidateJobs(qc, "acme");
    expect(stale(qc, keys)).toEqual(keys);
    expect(stale(qc, others)).toEqual([]);
  });

  it("submitting a run marks the runs lists and pages stale", () => {
    const keys = [runKeys.list("acme", { status: "RUNNING" }), runKeys.detail("acme", "3"), runKeys.result("acme", "3")];
    const qc = clientWith([...keys, jobListQuery("acme").queryKey]);
    invalidateRuns(qc, "acme");
    expect(stale(qc, keys)).toEqual(keys);
    expect(stale(qc, [jobListQuery("acme").queryKey])).toEqual([]);
  });

  it("lineage keys of a job and of a run stay under the team's lineage prefix", () => {
    expect(jobLineageQuery("acme", "7").queryKey.slice(0, 2)).toEqual(lineageKeys.all("acme"));
    expect(runLineageQuery("acme", 3, false).queryKey).not.toEqual(runLineageQuery("acme", 3, true).queryKey);
  });
});

describe("materialized view queries", () => {
  it("a refresh (invalidating the catalog's prefix) marks its views and their histories stale, not another catalog's", () => {
    const keys = [materializedViewsQuery("acme", "lake").queryKey, refreshHistoryQuery("acme", "lake", "shop", "totals").queryKey];
    const others = [materializedViewsQuery("acme", "other").queryKey, materializedViewsQuery("globex", "lake").queryKey, tablesQuery("acme", "lake", "shop").queryKey];
    const qc = clientWith([...keys, ...others]);
    void qc.invalidateQueries({ queryKey: materializedViewKeys.catalog("acme", "lake") });
    expect(stale(qc, keys)).toEqual(keys);
    expect(stale(qc, others)).toEqual([]);
  });
});
