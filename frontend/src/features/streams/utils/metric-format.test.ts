import { describe, expect, it } from "vitest";

import type { StreamMetric } from "@/features/streams/types";
import {
  formatAge, formatBytes, formatLag, formatNumber, formatRate, formatWatermark, metricColumns, rangeParams, timeTick,
} from "@/features/streams/utils/metric-format";

const metric = (over: Partial<StreamMetric>): StreamMetric => ({
  batch_id: 1, ts: "2026-11-23T18:00:00Z", input_rows: 100, input_rows_per_second: 10, processed_rows_per_second: 50,
  output_rows: 4, output_rows_per_second: 2, duration_ms: 800, watermark: null, state_rows: 12,
  state_memory_bytes: 40960, lag: 0, ...over,
});

describe("number formatting", () => {
  it("keeps small numbers, rounds fractions to one digit and shortens large ones", () => {
    expect([formatNumber(0), formatNumber(7), formatNumber(0.44), formatNumber(12.46), formatNumber(980)])
      .toEqual(["0", "7", "0.4", "12.5", "980"]);
    expect([formatNumber(1234), formatNumber(3_400_000)]).toEqual(["1.2K", "3.4M"]);
    expect([formatNumber(null), formatNumber(undefined), formatNumber(Number.NaN)]).toEqual(["—", "—", "—"]);
  });

  it("says rows/s, records and bytes", () => {
    expect(formatRate(12.46)).toBe("12.5 rows/s");
    expect(formatRate(null)).toBe("—");
    expect([formatLag(0), formatLag(1), formatLag(15_000), formatLag(null)]).toEqual(["0 records", "1 record", "15K records", "unknown"]);
    expect([formatBytes(512), formatBytes(40960), formatBytes(3.25 * 1024 * 1024), formatBytes(null)])
      .toEqual(["512 B", "40 KiB", "3.3 MiB", "—"]);
  });

  it("shows how far the watermark is behind now", () => {
    expect([formatAge(4_200), formatAge(125_000), formatAge(3 * 3600_000 + 600_000)]).toEqual(["4 s", "2 min 05 s", "3 h 10 min"]);
    const now = Date.parse("2026-11-23T18:00:10Z");
    expect(formatWatermark("2026-11-23T17:59:50Z", now)).toBe("2026-11-23 17:59:50 UTC (20 s behind now)");
    expect(formatWatermark(null, now)).toMatch(/^none/);
  });
});

describe("metricColumns", () => {
  it("turns rows into uPlot columns in time order, seconds on x, null for what a batch lacks", () => {
    const c = metricColumns([
      metric({ batch_id: 2, ts: "2026-11-23T18:00:02Z", lag: null, input_rows_per_second: 30 }),
      metric({ batch_id: 1, ts: "2026-11-23T18:00:00Z", state_rows: null }),
      metric({ batch_id: 3, ts: "not a time" }),
    ]);
    const t0 = Date.parse("2026-11-23T18:00:00Z") / 1000;
    expect(c.xs).toEqual([t0, t0 + 2]);
    expect(c.rowsIn).toEqual([10, 30]);
    expect(c.rowsOut).toEqual([2, 2]);
    expect(c.durationMs).toEqual([800, 800]);
    expect(c.stateRows).toEqual([null, 12]);
    expect(c.lag).toEqual([0, null]);
  });

  it("gives empty columns for no batches", () => {
    expect(metricColumns([]).xs).toEqual([]);
  });
});

describe("rangeParams", () => {
  it("asks for the last N minutes, open-ended", () => {
    const now = Date.parse("2026-11-23T18:15:00Z");
    expect(rangeParams(15, now)).toEqual({ since: "2026-11-23T18:00:00.000Z" });
  });
});

describe("timeTick", () => {
  it("shows seconds on short ranges and only hours:minutes on long ones", () => {
    const t = new Date(2026, 10, 23, 18, 4, 5).getTime() / 1000;  // local time, as the axis shows it
    expect(timeTick(t, 15 * 60)).toBe("18:04:05");
    expect(timeTick(t, 6 * 3600)).toBe("18:04");
  });
});
