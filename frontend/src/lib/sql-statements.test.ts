import { describe, expect, it } from "vitest";

import { statementRanges } from "@/lib/sql-statements";

const texts = (sql: string) => statementRanges(sql).map(([a, b]) => sql.slice(a, b).trim());

describe("statementRanges", () => {
  it("splits at semicolons and drops empty statements", () => {
    expect(texts("SELECT 1; SELECT 2;\n;")).toEqual(["SELECT 1", "SELECT 2"]);
  });

  it("ignores semicolons in strings, quoted names and comments", () => {
    const sql = "SELECT ';' AS a, `x;y` FROM t -- no; split\n;SELECT \"b;\"";
    expect(texts(sql)).toEqual(["SELECT ';' AS a, `x;y` FROM t -- no; split", 'SELECT "b;"']);
  });
});
