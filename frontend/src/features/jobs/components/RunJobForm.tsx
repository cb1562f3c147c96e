import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";

import { ErrorBox } from "@/components/Status";
import { useRunJob } from "@/features/jobs/api/run-job";
import type { Job } from "@/features/jobs/types";

/** "Run now" for a saved batch job: one field per declared `${name}` parameter, filled with its default; only
 * the values changed from the defaults are sent, and the run page opens. */
export function RunJobForm({ team, job }: { team: string; job: Job }) {
  const declared = Object.entries(job.parameters);
  const [values, setValues] = useState<Record<string, string>>(
    Object.fromEntries(declared.map(([name, p]) => [name, p.default ?? ""])),
  );
  const run = useRunJob(team);
  const navigate = useNavigate();

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const changed = Object.fromEntries(
      declared.filter(([name, p]) => values[name] !== (p.default ?? "") || p.default == null)
        .map(([name]) => [name, values[name]]),
    );
    run.mutate({ jobId: job.id, parameters: changed }, {
      onSuccess: (submitted) => navigate(`/t/${encodeURIComponent(team)}/runs/${submitted.id}`),
    });
  };

  return (
    <form className="card run-job" onSubmit={submit} aria-label="Run this job">
      {declared.map(([name, p]) => (
        <div className="field" key={name}>
          <label htmlFor={`run-param-${name}`}><code>{`\${${name}}`}</code> ({p.type})</label>
          <input id={`run-param-${name}`} value={values[name]} spellCheck={false}
                 placeholder={p.default == null ? "required" : undefined}
                 onChange={(e) => setValues({ ...values, [name]: e.target.value })} />
        </div>
      ))}
      {run.error ? <ErrorBox error={run.error} title="Not started" /> : null}
      <div className="form-actions">
        <button type="submit" className="btn primary" disabled={run.isPending}>Run now</button>
      </div>
    </form>
  );
}
