import { describe, expect, it } from "vitest";

import { refetchWhileSyntaxOnly, retryWhileUnavailable } from "@/features/sql-editor/api/validate-sql";
import { ApiError } from "@/lib/api-client";

describe("retryWhileUnavailable", () => {
  it("asks again while the engine or the team's editor slots are unavailable (503)", () => {
    expect(retryWhileUnavailable(0, new ApiError(503, "unavailable", "Team 'acme' already has 2 editor call(s)"))).toBe(true);
    expect(retryWhileUnavailable(29, new ApiError(503, "unavailable", "busy"))).toBe(true);
  });

  it("stops after 30 tries, and never retries a refusal or a network error", () => {
    expect(retryWhileUnavailable(30, new ApiError(503, "unavailable", "busy"))).toBe(false);
    expect(retryWhileUnavailable(0, new ApiError(400, "invalid", "bad"))).toBe(false);
    expect(retryWhileUnavailable(0, new Error("offline"))).toBe(false);
  });
});

describe("refetchWhileSyntaxOnly", () => {
  it("asks again while the answer was Spark's parser alone (the engine was starting), and stops at the full check", () => {
    const base = { valid: true, errors: [], schema: [], statements: [] };
    expect(refetchWhileSyntaxOnly({ ...base, checked: "syntax" })).toBe(2000);
    expect(refetchWhileSyntaxOnly({ ...base, checked: "full" })).toBe(false);
    expect(refetchWhileSyntaxOnly(undefined)).toBe(false);
  });
});
