import { useState } from "react";
import { Link, useSearchParams } from "react-router";

import { Pager } from "@/components/Pager";
import { EmptyState, ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useRuns } from "@/features/runs/api/get-runs";
import { RunStatusBadge } from "@/features/runs/components/RunStatusBadge";
import { useDebounced } from "@/hooks/use-debounced";
import { useTeam } from "@/hooks/use-team";
import { durationBetween, formatDateTime, formatDuration } from "@/lib/format";

const STATUSES = ["QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED"];

/** The team's job runs, newest first, with status and user filters. */
export function RunsPage() {
  const { team } = useTeam();
  const [params, setParams] = useSearchParams();
  const status = params.get("status") ?? "";
  const [user, setUser] = useState(params.get("user") ?? "");
  const [page, setPage] = useState(1);
  const debouncedUser = useDebounced(user.trim(), 300);
  const q = useRuns(team, { status: status || undefined, user: debouncedUser || undefined, job: params.get("job") ?? undefined, page });
  const base = `/t/${encodeURIComponent(team)}`;

  return (
    <>
      <PageHeader title="Runs">
        <Link to={`${base}/sql`} className="btn primary">
          New query
        </Link>
      </PageHeader>
      <div className="filters" role="search" aria-label="Filter runs">
        <div className="field">
          <label htmlFor="runs-status">Status</label>
          <select
            id="runs-status"
            value={status}
            onChange={(e) => {
              const next = new URLSearchParams(params);
              if (e.target.value) next.set("status", e.target.value);
              else next.delete("status");
              setParams(next, { replace: true });
              setPage(1);
            }}
          >
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.charAt(0) + s.slice(1).toLowerCase()}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="runs-user">Run by</label>
          <input id="runs-user" type="search" value={user} onChange={(e) => { setUser(e.target.value); setPage(1); }} placeholder="username" autoComplete="off" />
        </div>
      </div>
      {q.isPending ? (
        <Loading label="Loading runs…" />
      ) : q.error ? (
        <ErrorBox error={q.error} title="Could not load runs" onRetry={() => q.refetch()} />
      ) : q.data.results.length === 0 ? (
        <EmptyState title="No runs">
          <p>
            Write a query in the <Link to={`${base}/sql`}>SQL editor</Link> and press Run.
          </p>
        </EmptyState>
      ) : (
        <>
          <table className="table responsive" aria-label="Runs">
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Job</th>
                <th scope="col">Status</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">Run by</th>
              </tr>
            </thead>
            <tbody>
              {q.data.results.map((r) => (
                <tr key={r.id}>
                  <td data-label="Run">
                    <Link to={`${base}/runs/${r.id}`}>#{r.id}</Link>
                  </td>
                  <td data-label="Job">{r.job_name}</td>
                  <td data-label="Status">
                    <RunStatusBadge status={r.status} />
                  </td>
                  <td data-label="Started">{formatDateTime(r.started_at ?? r.created_at)}</td>
                  <td data-label="Duration">{formatDuration(durationBetween(r.started_at, r.finished_at))}</td>
                  <td data-label="Run by">{r.submitted_by ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager page={page} data={q.data} noun="runs" onPage={setPage} />
        </>
      )}
    </>
  );
}
