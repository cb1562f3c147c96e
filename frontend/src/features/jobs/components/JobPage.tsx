import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useParams } from "react-router";

import { ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useSchedules } from "@/features/jobs/api/get-schedules";
import type { Job } from "@/features/jobs/types";
import { RunJobForm } from "@/features/jobs/components/RunJobForm";
import { ScheduleEditor } from "@/features/jobs/components/ScheduleEditor";
import { JobLineage } from "@/features/jobs/components/JobLineage";
import { ScheduleList } from "@/features/jobs/components/ScheduleList";
import { useTeam } from "@/hooks/use-team";
import { jobQuery } from "@/lib/queries/jobs";

type Props = {
  /** What a streaming job shows instead of parameters and schedules (the app passes the streams feature's panel,
   * so the two features do not import each other). */
  renderStreaming?: (job: Job) => ReactNode;
};

/** One job: its SQL, its `${name}` parameters and its schedules (editor with a live fire-time preview); a
 * streaming job shows its operations panel instead of parameters and schedules. */
export function JobPage({ renderStreaming }: Props) {
  const { team, canRunSql } = useTeam();
  const { jobId = "" } = useParams();
  const job = useQuery(jobQuery(team, jobId));
  const streaming = job.data?.kind === "streaming";
  const schedules = useSchedules(team, jobId, !streaming);
  if (job.isPending) return <Loading label="Loading job…" />;
  if (job.error) return <ErrorBox error={job.error} onRetry={() => job.refetch()} />;
  if (streaming) {
    return (
      <>
        <PageHeader title={<>{job.data.name} <span className="badge">streaming</span></>} />
        {renderStreaming?.(job.data)}
        <JobLineage team={team} jobId={jobId} />
        <h2>SQL</h2>
        <pre className="sql-block statement-sql">{job.data.sql}</pre>
      </>
    );
  }
  const params = Object.entries(job.data.parameters);
  return (
    <>
      <PageHeader title={job.data.name} />
      <JobLineage team={team} jobId={jobId} />
      <h2>SQL</h2>
      <pre className="sql-block statement-sql">{job.data.sql}</pre>
      <h2>Parameters</h2>
      {params.length === 0 ? (
        <p className="muted">None. Built in: <code>{"${ds}"}</code> (logical date) and <code>{"${ts}"}</code>.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Default</th>
            </tr>
          </thead>
          <tbody>
            {params.map(([name, p]) => (
              <tr key={name}>
                <td><code>{`\${${name}}`}</code></td>
                <td>{p.type}</td>
                <td>{p.default ?? <span className="muted">required</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {canRunSql && <RunJobForm team={team} job={job.data} />}
      <h2>Schedules</h2>
      {schedules.isPending ? (
        <Loading label="Loading schedules…" />
      ) : schedules.error ? (
        <ErrorBox error={schedules.error} onRetry={() => schedules.refetch()} />
      ) : (
        <ScheduleList team={team} schedules={schedules.data.results} canEdit={canRunSql} />
      )}
      {canRunSql && <ScheduleEditor team={team} jobId={job.data.id} />}
    </>
  );
}
