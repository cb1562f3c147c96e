import { describe, expect, it } from "vitest";

import { columnIndex } from "@/lib/sql-positions";

describe("columnIndex", () => {
  it("is column - 1 for text of the Basic Multilingual Plane, accents included", () => {
    expect(columnIndex("SELECT 'é' AS x", 12)).toBe(11);
  });

  it("counts an emoji as one column but two string units", () => {
    const line = "SELECT '😀' AS smile; SELECT x";
    expect(line.slice(columnIndex(line, 22))).toBe("SELECT x");
  });

  it("goes past the end of the line as the column does", () => {
    expect(columnIndex("ab", 5)).toBe(4);
  });
});
