import { Navigate, useNavigate } from "react-router";

import { EmptyState } from "@/components/Status";
import { useLogout, useMe } from "@/lib/auth";

/** The empty state for a signed-in user who belongs to no team yet. */
export function NoTeamPage() {
  const { data: me } = useMe();
  const logout = useLogout();
  const navigate = useNavigate();
  if (me && me.teams.length > 0) return <Navigate to={`/t/${encodeURIComponent(me.teams[0].name)}/catalogs`} replace />;
  return (
    <div className="center-page">
      <div className="card">
        <EmptyState title="You are not in a team yet">
          <p>
            Signed in as <strong>{me?.username}</strong>. Catalogs, SQL and runs belong to teams: ask a team admin
            to add you as a member, then reload this page.
          </p>
          <button type="button" className="btn" onClick={() => logout.mutate(undefined, { onSuccess: () => navigate("/login") })}>
            Sign out
          </button>
        </EmptyState>
      </div>
    </div>
  );
}
