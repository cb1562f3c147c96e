import { describe, expect, it } from "vitest";

import { viewMark } from "@/features/lineage/components/LineagePage";
import type { LineageDataset } from "@/features/lineage/types";

function dataset(view: LineageDataset["view"]): LineageDataset {
  return { id: 1, name: "lake.shop.mv", aliases: ["lake.shop.mv"], namespace: "file", physical_name: "/w/shop/mv", kind: "table", depth: 0, view };
}

const view = {
  name: "lake.shop.mv", refresh_mode: "manual", table_version: 3, last_refresh_at: null,
  stale: true, behind: 2, stale_since: "2026-01-01T00:00:00+00:00",
  sources: [{ name: "lake.shop.orders", reflected: 4, latest: 6, behind: 2, since: "2026-01-01T00:00:00+00:00" }],
};

describe("viewMark", () => {
  it("leaves plain tables unmarked", () => {
    expect(viewMark(dataset(null))).toBeNull();
  });
  it("marks a fresh view", () => {
    expect(viewMark(dataset({ ...view, stale: false, behind: 0, stale_since: null }))).toEqual({ text: "MV fresh", className: "mv-fresh" });
  });
  it("says how far behind a stale view is, in versions and time", () => {
    const now = Date.parse("2026-01-01T00:05:00Z");
    expect(viewMark(dataset(view), now)).toEqual({ text: "MV stale (2 versions, 5 min behind)", className: "mv-stale" });
    expect(viewMark(dataset({ ...view, behind: 1, stale_since: null }), now)?.text).toBe("MV stale (1 version behind)");
  });
});
