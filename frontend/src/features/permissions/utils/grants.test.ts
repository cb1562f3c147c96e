import { describe, expect, it } from "vitest";

import type { AccessGroup, Grant } from "@/features/permissions/types";
import { grantOrigin, mayManage, securableName, sortGrants } from "@/features/permissions/utils/grants";

const grant = (id: number, securable: string, privilege: Grant["privilege"], principal: string, principal_type = "group"): Grant => ({
  id, securable, privilege, principal, principal_type, granted_by: "ada", granted_at: "2026-01-01T00:00:00Z",
});
const table = { catalog: "lake", database: "sales", table: "orders" };
const groups: AccessGroup[] = [{ name: "owners", description: "", members: ["olga"], created_at: "2026-01-01T00:00:00Z" }];

describe("grants on a securable", () => {
  it("names the securable", () => {
    expect(securableName(table)).toBe("lake.sales.orders");
    expect(securableName({ catalog: "lake", database: "sales" })).toBe("lake.sales");
    expect(securableName({ catalog: "lake" })).toBe("lake");
  });

  it("says where each grant comes from", () => {
    expect(grantOrigin(grant(1, "lake.sales.orders", "SELECT", "a"), table)).toBe("this table");
    expect(grantOrigin(grant(2, "lake.sales.*", "SELECT", "a"), table)).toBe("every table of lake.sales");
    expect(grantOrigin(grant(3, "lake.sales", "SELECT", "a"), table)).toBe("schema lake.sales");
    expect(grantOrigin(grant(4, "lake.*", "SELECT", "a"), table)).toBe("every schema of lake");
    expect(grantOrigin(grant(5, "lake", "MANAGE", "a"), table)).toBe("catalog lake");
    expect(grantOrigin(grant(6, "lake", "MANAGE", "a"), { catalog: "lake" })).toBe("this catalog");
  });

  it("lists direct grants first, then the nearest level up", () => {
    const sorted = sortGrants([grant(1, "lake", "MANAGE", "a"), grant(2, "lake.sales.*", "SELECT", "a"),
      grant(3, "lake.sales", "SELECT", "a"), grant(4, "lake.sales.orders", "SELECT", "a")], table);
    expect(sorted.map((g) => g.id)).toEqual([4, 2, 3, 1]);
  });

  it("lets team admins and MANAGE holders (directly or through a group) grant", () => {
    const base = { groups, isAdmin: false };
    expect(mayManage({ ...base, grants: [], username: "ada", isAdmin: true })).toBe(true);
    expect(mayManage({ ...base, grants: [grant(1, "lake", "MANAGE", "owners")], username: "olga" })).toBe(true);
    expect(mayManage({ ...base, grants: [grant(1, "lake", "MANAGE", "owners")], username: "bob" })).toBe(false);
    expect(mayManage({ ...base, grants: [grant(1, "lake", "MANAGE", "bob", "user")], username: "bob" })).toBe(true);
    expect(mayManage({ ...base, grants: [grant(1, "lake", "SELECT", "bob", "user")], username: "bob" })).toBe(false);
  });
});
