import { describe, expect, it } from "vitest";

import { numericColumns } from "@/components/ResultChart";

describe("numericColumns", () => {
  it("takes numeric types from the schema, or columns holding only numbers", () => {
    const result = {
      columns: [{ name: "region", type: "string" }, { name: "amount", type: "decimal(10,2)" }, { name: "n" }, { name: "label" }],
      rows: [["north", "10.50", 3, "a"], ["south", "2.00", null, "b"]],
    };
    expect(numericColumns(result)).toEqual([1, 2]);
  });
});
