// How a Permissions tab reads the grants that hold on its securable (docs/access.md): where each one comes from,
// and whether the signed-in user may grant and revoke there. The server decides again on every write.
import type { AccessGroup, Grant, Securable } from "@/features/permissions/types";

const LEVELS = ["catalog", "schema", "table"] as const;
export type Level = (typeof LEVELS)[number];

/** `lake`, `lake.sales` or `lake.sales.orders`. */
export function securableName(s: Securable): string {
  return [s.catalog, s.database, s.table].filter((p) => p !== undefined && p !== "").join(".");
}

/** The level of a securable: catalog, schema or table. */
export function levelOf(s: Securable): Level {
  return s.table ? "table" : s.database ? "schema" : "catalog";
}

/** Where a grant listed for `on` comes from, in words: "this table", "schema lake.sales", "every table of lake.sales". */
export function grantOrigin(grant: Grant, on: Securable): string {
  const parts = grant.securable.split(".");
  const here = securableName(on);
  if (grant.securable === here) return `this ${levelOf(on)}`;
  if (parts[parts.length - 1] === "*") {
    const above = parts.slice(0, -1);
    return `every ${above.length === 1 ? "schema" : "table"} of ${above.join(".")}`;
  }
  return `${LEVELS[parts.length - 1]} ${grant.securable}`;
}

/** True when the grant names this securable itself (not a level above it). */
export function isDirect(grant: Grant, on: Securable): boolean {
  return grant.securable === securableName(on);
}

/** The grants on this securable first, then those inherited from the nearest level up. */
export function sortGrants(grants: Grant[], on: Securable): Grant[] {
  const depth = (g: Grant) => g.securable.split(".").length - (g.securable.endsWith(".*") ? 0.5 : 0);
  return [...grants].sort(
    (a, b) => Number(isDirect(b, on)) - Number(isDirect(a, on)) || depth(b) - depth(a) || a.privilege.localeCompare(b.privilege) || a.principal.localeCompare(b.principal),
  );
}

/** Whether `username` may grant and revoke here: a team admin, or MANAGE held on it or above it, themselves or
 * through a group (the listed grants are exactly those that hold on the securable). */
export function mayManage({ grants, groups, username, isAdmin }: {
  grants: Grant[]; groups: AccessGroup[]; username: string | undefined; isAdmin: boolean;
}): boolean {
  if (isAdmin) return true;
  if (!username) return false;
  const mine = new Set(groups.filter((g) => g.members.includes(username)).map((g) => g.name));
  return grants.some(
    (g) => g.privilege === "MANAGE" && ((g.principal_type === "user" && g.principal === username) || (g.principal_type === "group" && mine.has(g.principal))),
  );
}
