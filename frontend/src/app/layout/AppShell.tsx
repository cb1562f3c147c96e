import { NavLink, Outlet, useLocation, useNavigate } from "react-router";
import { Suspense } from "react";

import { EmptyState, Loading } from "@/components/Status";
import { useTeam } from "@/hooks/use-team";
import { useLogout, useMe } from "@/lib/auth";

/** Header (team switcher with role, user, sign out), navigation, and the current screen. */
export function AppShell() {
  const { data: me } = useMe();
  const { team, role, isAdmin } = useTeam();
  const navigate = useNavigate();
  const location = useLocation();
  const logout = useLogout();

  const switchTeam = (next: string) => {
    const section = location.pathname.split("/")[3] ?? "catalogs";
    const keep = ["catalogs", "browse", "sql", "jobs", "runs", "alerts", "members", "groups"].includes(section) ? section : "catalogs";
    navigate(`/t/${encodeURIComponent(next)}/${keep}`);
  };

  const nav = [
    { to: "catalogs", label: "Catalogs" },
    { to: "browse", label: "Browse" },
    { to: "sql", label: "SQL" },
    { to: "jobs", label: "Jobs" },
    { to: "runs", label: "Runs" },
    { to: "alerts", label: "Alerts" },
    ...(isAdmin ? [{ to: "members", label: "Members" }] : []),
    { to: "groups", label: "Groups" },
  ];

  return (
    <div className="shell">
      <a href="#main" className="skip-link">Skip to content</a>
      <header className="topbar">
        <span className="brand" aria-label="Lakeport">◈ Lakeport</span>
        <div className="team-switcher">
          <label htmlFor="team-switcher">Team</label>
          <select id="team-switcher" value={team} onChange={(e) => switchTeam(e.target.value)}>
            {!me?.teams.some((t) => t.name === team) && <option value={team}>{team}</option>}
            {me?.teams.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name}
              </option>
            ))}
          </select>
          <span className={`role-badge role-${role ?? "none"}`} data-testid="role-badge">
            {role ?? "no role"}
          </span>
        </div>
        <div className="user-box">
          <span className="username" title="Signed in as">{me?.username}</span>
          <button
            type="button"
            className="btn small"
            disabled={logout.isPending}
            onClick={() => logout.mutate(undefined, { onSuccess: () => navigate("/login") })}
          >
            Sign out
          </button>
        </div>
      </header>
      <nav className="sidenav" aria-label="Sections">
        {nav.map((n) => (
          <NavLink key={n.to} to={`/t/${encodeURIComponent(team)}/${n.to}`} className="navlink">
            {n.label}
          </NavLink>
        ))}
      </nav>
      <main id="main" className="content">
        {role === null ? (
          <EmptyState title="Not a member of this team">
            <p>You are not a member of “{team}”. Pick one of your teams above.</p>
          </EmptyState>
        ) : (
          // a page's code arrives with its first visit (routes.tsx): the navigation stays while it loads
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        )}
      </main>
    </div>
  );
}
