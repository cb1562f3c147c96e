// One key layout for grants, groups, row filters and masks: any change invalidates every Permissions tab of the team.
export const accessKeys = {
  all: (team: string) => ["access", team] as const,
  grants: (team: string, securable: string) => ["access", team, "grants", securable] as const,
  groups: (team: string) => ["access", team, "groups"] as const,
  rowFilters: (team: string, table: string) => ["access", team, "row-filters", table] as const,
  columnMasks: (team: string, table: string) => ["access", team, "column-masks", table] as const,
};

export const teamPath = (team: string) => `teams/${encodeURIComponent(team)}/`;
