import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";

import { EmptyState, ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useTeam } from "@/hooks/use-team";
import { formatDateTime } from "@/lib/format";
import { jobListQuery } from "@/lib/queries/jobs";

/** The team's saved SQL jobs (batch or streaming); each opens its page. Developers and admins create new ones. */
export function JobsPage() {
  const { team, canRunSql } = useTeam();
  const q = useQuery(jobListQuery(team));
  const base = `/t/${encodeURIComponent(team)}`;
  return (
    <>
      <PageHeader title="Jobs">
        {canRunSql && <Link className="btn primary" to={`${base}/jobs/new`}>New job</Link>}
      </PageHeader>
      {q.isPending ? (
        <Loading label="Loading jobs…" />
      ) : q.error ? (
        <ErrorBox error={q.error} onRetry={() => q.refetch()} />
      ) : q.data.results.length === 0 ? (
        <EmptyState title="No jobs yet">
          <p>Save a script from the SQL editor, or declare jobs with <code>manage.py apply -f</code>.</p>
        </EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Kind</th>
              <th scope="col">Parameters</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {q.data.results.map((job) => (
              <tr key={job.id}>
                <td>
                  <Link to={`${base}/jobs/${job.id}`}>{job.name}</Link>
                </td>
                <td>{job.kind === "streaming" ? "Streaming" : "Batch"}</td>
                <td>{Object.keys(job.parameters).join(", ") || "—"}</td>
                <td>{formatDateTime(job.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
