import { useParams } from "react-router";

import { useMe, type Role } from "@/lib/auth";

export type TeamContext = {
  team: string;
  role: Role | null;
  isAdmin: boolean;
  canRunSql: boolean;
};

/** The team in the URL (/t/:team/…) and the signed-in user's role in it. */
export function useTeam(): TeamContext {
  const { team = "" } = useParams();
  const { data: me } = useMe();
  const role = me?.teams.find((t) => t.name === team)?.role ?? (me?.is_platform_admin ? "admin" : null);
  return { team, role, isAdmin: role === "admin", canRunSql: role === "admin" || role === "developer" };
}
