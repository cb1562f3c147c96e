import { describe, expect, it } from "vitest";

import { referencedTables } from "@/features/sql-editor/hooks/sql-completion";

describe("referencedTables", () => {
  it("finds three-part names with their aliases, not keywords", () => {
    const sql = "SELECT s.amount FROM pg.public.sales s JOIN lake.db.trips AS t ON 1=1 WHERE x";
    expect(referencedTables(sql, "")).toEqual([
      { catalog: "pg", database: "public", table: "sales", alias: "s" },
      { catalog: "lake", database: "db", table: "trips", alias: "t" },
    ]);
    expect(referencedTables("SELECT * FROM pg.public.sales WHERE a", "")[0].alias).toBeUndefined();
  });

  it("resolves two-part names in the default catalog and unquotes backticks", () => {
    expect(referencedTables("select * from `my db`.`t-1`", "pg")).toEqual([
      { catalog: "pg", database: "my db", table: "t-1", alias: undefined },
    ]);
    expect(referencedTables("select * from db.t", "")).toEqual([]);
  });
});
