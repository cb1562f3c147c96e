import { Navigate, Route, Routes, useLocation } from "react-router";
import type { ReactNode } from "react";

import { AppShell } from "@/app/layout/AppShell";
import { ErrorBox, Loading } from "@/components/Status";
import { LoginPage } from "@/features/auth/components/LoginPage";
import { NoTeamPage } from "@/features/auth/components/NoTeamPage";
import { CatalogDetailPage } from "@/features/catalogs/components/CatalogDetailPage";
import { CatalogEditPage } from "@/features/catalogs/components/CatalogEditPage";
import { CatalogsPage } from "@/features/catalogs/components/CatalogsPage";
import { JobCreatePage } from "@/features/jobs/components/JobCreatePage";
import { JobPage } from "@/features/jobs/components/JobPage";
import { JobsPage } from "@/features/jobs/components/JobsPage";
import { LineagePage } from "@/features/lineage/components/LineagePage";
import { MembersPage } from "@/features/members/components/MembersPage";
import { MetadataBrowserPage } from "@/features/metadata/components/MetadataBrowserPage";
import { RunPage } from "@/features/runs/components/RunPage";
import { RunsPage } from "@/features/runs/components/RunsPage";
import { SqlEditorPage } from "@/features/sql-editor/components/SqlEditorPage";
import { StreamPanel } from "@/features/streams/components/StreamPanel";
import { useMe } from "@/lib/auth";

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
        <Route path="browse" element={<MetadataBrowserPage />} />
        <Route path="sql" element={<SqlEditorPage />} />
        <Route path="jobs" element={<JobsPage />} />
        <Route path="jobs/new" element={<JobCreatePage />} />
        <Route path="jobs/:jobId" element={<JobPage renderStreaming={(job) => <StreamPanel jobId={job.id} />} />} />
        <Route path="runs" element={<RunsPage />} />
        <Route path="lineage" element={<LineagePage />} />
        <Route path="runs/:runId" element={<RunPage />} />
        <Route path="members" element={<MembersPage />} />
      </Route>
      <Route path="*" element={<RequireAuth><Home /></RequireAuth>} />
    </Routes>
  );
}
