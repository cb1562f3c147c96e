import { Link } from "react-router";

import { EmptyState, ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useJobs } from "@/features/jobs/api/get-jobs";
import { useTeam } from "@/hooks/use-team";
import { formatDateTime } from "@/lib/format";

/** The team's saved SQL jobs; each opens its page with parameters and schedules. */
export function JobsPage() {
  const { team } = useTeam();
  const q = useJobs(team);
  const base = `/t/${encodeURIComponent(team)}`;
  return (
    <>
      <PageHeader title="Jobs" />
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
