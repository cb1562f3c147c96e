import { useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router";

import { ErrorBox, PageHeader } from "@/components/Status";
import { useCreateJob } from "@/features/jobs/api/create-job";
import type { JobKind } from "@/features/jobs/types";
import { useTeam } from "@/hooks/use-team";
import { fieldErrors } from "@/lib/api-client";

const STREAMING_EXAMPLE = `CREATE TABLE IF NOT EXISTS lake.db.totals (room STRING, window_start TIMESTAMP, n BIGINT);
INSERT INTO lake.db.totals
SELECT room, window.start, count(*)
FROM STREAM(events.default.readings) WATERMARK ts DELAY OF INTERVAL 10 SECONDS
GROUP BY room, window(ts, '10 seconds')
EMIT AFTER WATERMARK`;

function Errors({ messages, id }: { messages: string[]; id: string }) {
  if (messages.length === 0) return null;
  return (
    <ul className="field-errors" id={id}>
      {messages.map((m) => <li key={m}>{m}</li>)}
    </ul>
  );
}

/** A new job: name, kind (Batch | Streaming), default catalog and SQL. The server checks a streaming script's
 * shape on save and its message shows under the SQL. */
export function JobCreatePage() {
  const { team, canRunSql } = useTeam();
  const navigate = useNavigate();
  const create = useCreateJob(team);
  const [name, setName] = useState("");
  const [kind, setKind] = useState<JobKind>("batch");
  const [defaultCatalog, setDefaultCatalog] = useState("");
  const [sql, setSql] = useState("");
  const base = `/t/${encodeURIComponent(team)}`;

  if (!canRunSql) {
    return (
      <>
        <PageHeader title="New job" />
        <p className="muted">Only developers and admins of the team create jobs.</p>
      </>
    );
  }

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name: name.trim(), kind, sql, default_catalog: defaultCatalog.trim() },
      { onSuccess: (job) => navigate(`${base}/jobs/${job.id}`) },
    );
  };
  const nameErrors = fieldErrors(create.error, "name");
  const kindErrors = fieldErrors(create.error, "kind");
  const sqlErrors = fieldErrors(create.error, "sql");
  const catalogErrors = fieldErrors(create.error, "default_catalog");

  return (
    <>
      <PageHeader title="New job" />
      <form className="form" onSubmit={submit} aria-label="New job">
        {create.error && <ErrorBox error={create.error} title="Not saved" />}
        <div className="field">
          <label htmlFor="job-name">Name</label>
          <input id="job-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200}
                 aria-invalid={nameErrors.length > 0} aria-describedby="job-name-errors" />
          <Errors messages={nameErrors} id="job-name-errors" />
        </div>
        <fieldset className="config-fields">
          <legend>Kind</legend>
          <label className="field field-inline">
            <input type="radio" name="job-kind" value="batch" checked={kind === "batch"} onChange={() => setKind("batch")} />
            Batch <span className="muted">— runs to completion, on demand or on a schedule</span>
          </label>
          <label className="field field-inline">
            <input type="radio" name="job-kind" value="streaming" checked={kind === "streaming"} onChange={() => setKind("streaming")} />
            Streaming <span className="muted">— one long-running query the platform keeps running</span>
          </label>
          <Errors messages={kindErrors} id="job-kind-errors" />
        </fieldset>
        <div className="field">
          <label htmlFor="job-default-catalog">Default catalog <span className="muted">(optional)</span></label>
          <input id="job-default-catalog" value={defaultCatalog} onChange={(e) => setDefaultCatalog(e.target.value)}
                 aria-invalid={catalogErrors.length > 0} />
          <Errors messages={catalogErrors} id="job-default-catalog-errors" />
        </div>
        <div className="field">
          <label htmlFor="job-sql">SQL</label>
          {kind === "streaming" && (
            <p className="muted" id="job-sql-hint">
              Statements, the last one <code>INSERT INTO … SELECT … FROM STREAM(…) … [EMIT …]</code>; checked when you
              save (an empty box shows an example).
            </p>
          )}
          <textarea id="job-sql" className="mono" rows={10} value={sql} onChange={(e) => setSql(e.target.value)} spellCheck={false}
                    placeholder={kind === "streaming" ? STREAMING_EXAMPLE : "SELECT …"} required
                    aria-invalid={sqlErrors.length > 0} aria-describedby="job-sql-errors" />
          <Errors messages={sqlErrors} id="job-sql-errors" />
        </div>
        <div className="form-actions">
          <button type="submit" className="btn primary" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create job"}
          </button>
          <Link className="btn" to={`${base}/jobs`}>Cancel</Link>
        </div>
      </form>
    </>
  );
}
