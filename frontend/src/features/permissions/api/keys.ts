// One key layout for grants and groups: a grant or a group change invalidates every Permissions tab of the team.
export const accessKeys = {
  all: (team: string) => ["access", team] as const,
  grants: (team: string, securable: string) => ["access", team, "grants", securable] as const,
  groups: (team: string) => ["access", team, "groups"] as const,
};

export const teamPath = (team: string) => `teams/${encodeURIComponent(team)}/`;
