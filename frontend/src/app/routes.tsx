import { Navigate, Route, Routes, useLocation } from "react-router";
import { lazy, Suspense } from "react";
import type { ComponentType, ReactNode } from "react";

import { AppShell } from "@/app/layout/AppShell";
import { ErrorBox, Loading } from "@/components/Status";
import { LoginPage } from "@/features/auth/components/LoginPage";
import { useMe } from "@/lib/auth";

/** A page loaded with its route: each becomes a chunk of its own, fetched the first time the route is opened. */
function page<P extends object>(load: () => Promise<ComponentType<P>>) {
  return lazy(async () => ({ default: await load() }));
}

const NoTeamPage = page(() => import("@/features/auth/components/NoTeamPage").then((m) => m.NoTeamPage));
const CatalogDetailPage = page(() => import("@/features/catalogs/components/CatalogDetailPage").then((m) => m.CatalogDetailPage));
const CatalogEditPage = page(() => import("@/features/catalogs/components/CatalogEditPage").then((m) => m.CatalogEditPage));
const CatalogsPage = page(() => import("@/features/catalogs/components/CatalogsPage").then((m) => m.CatalogsPage));
const JobCreatePage = page(() => import("@/features/jobs/components/JobCreatePage").then((m) => m.JobCreatePage));
const JobPage = page(() => import("@/features/jobs/components/JobPage").then((m) => m.JobPage));
const JobsPage = page(() => import("@/features/jobs/components/JobsPage").then((m) => m.JobsPage));
const LineagePage = page(() => import("@/features/lineage/components/LineagePage").then((m) => m.LineagePage));
const AlertsPage = page(() => import("@/features/alerts/components/AlertsPage").then((m) => m.AlertsPage));
const GroupsPage = page(() => import("@/features/permissions/components/GroupsPage").then((m) => m.GroupsPage));
const PermissionsPanel = page(() => import("@/features/permissions/components/PermissionsPanel").then((m) => m.PermissionsPanel));
const MembersPage = page(() => import("@/features/members/components/MembersPage").then((m) => m.MembersPage));
const MetadataBrowserPage = page(() => import("@/features/metadata/components/MetadataBrowserPage").then((m) => m.MetadataBrowserPage));
const RunPage = page(() => import("@/features/runs/components/RunPage").then((m) => m.RunPage));
const RunsPage = page(() => import("@/features/runs/components/RunsPage").then((m) => m.RunsPage));
const SqlEditorPage = page(() => import("@/features/sql-editor/components/SqlEditorPage").then((m) => m.SqlEditorPage));
const StreamPanel = page(() => import("@/features/streams/components/StreamPanel").then((m) => m.StreamPanel));

function RequireAuth({ children }: { children: ReactNode }) {
  const { data: me, isPending, error, refetch } = useMe();
  const location = useLocation();
  if (isPending) return <Loading label="Signing you in…" />;
  if (error) return <div className="center-page"><ErrorBox error={error} onRetry={() => refetch()} /></div>;
  if (!me) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return <>{children}</>;
}

function Home() {
  const { data: me } = useMe();
  const first = me?.teams[0];
  if (!first) return <Navigate to="/no-team" replace />;
  return <Navigate to={`/t/${encodeURIComponent(first.name)}/catalogs`} replace />;
}

export function AppRoutes() {
  return (
    // the shell keeps its own boundary around a page (AppShell); this one covers pages outside it
    <Suspense fallback={<Loading />}>
      <Routes>
        <Route path="/login" element={<LoginPage />} />
        <Route path="/no-team" element={<RequireAuth><NoTeamPage /></RequireAuth>} />
        <Route path="/" element={<RequireAuth><Home /></RequireAuth>} />
        <Route path="/t/:team" element={<RequireAuth><AppShell /></RequireAuth>}>
          <Route index element={<Navigate to="catalogs" replace />} />
          <Route path="catalogs" element={<CatalogsPage />} />
          <Route path="catalogs/new" element={<CatalogEditPage />} />
          <Route path="catalogs/:name" element={<CatalogDetailPage />} />
          <Route path="catalogs/:name/edit" element={<CatalogEditPage />} />
          <Route path="browse" element={<MetadataBrowserPage renderPermissions={(target) => <Suspense fallback={<Loading />}><PermissionsPanel securable={target} /></Suspense>} />} />
          <Route path="sql" element={<SqlEditorPage />} />
          <Route path="jobs" element={<JobsPage />} />
          <Route path="jobs/new" element={<JobCreatePage />} />
          <Route path="jobs/:jobId" element={<JobPage renderStreaming={(job) => <StreamPanel jobId={job.id} />} />} />
          <Route path="runs" element={<RunsPage />} />
          <Route path="lineage" element={<LineagePage />} />
          <Route path="runs/:runId" element={<RunPage />} />
          <Route path="members" element={<MembersPage />} />
          <Route path="groups" element={<GroupsPage />} />
          <Route path="alerts" element={<AlertsPage />} />
        </Route>
        <Route path="*" element={<RequireAuth><Home /></RequireAuth>} />
      </Routes>
    </Suspense>
  );
}
