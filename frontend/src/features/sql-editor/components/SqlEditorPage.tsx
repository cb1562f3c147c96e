import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useNavigate, useSearchParams } from "react-router";

import { ErrorBox, PageHeader } from "@/components/Status";
import { useDeployStream } from "@/features/sql-editor/api/deploy-stream";
import { useSaveAndRun } from "@/features/sql-editor/api/submit-run";
import { useWarmEngine } from "@/features/sql-editor/api/warm-engine";
import { LivePreviewPanel } from "@/features/sql-editor/components/LivePreviewPanel";
import { PreviewSection } from "@/features/sql-editor/components/PreviewSection";
import { SqlEditor } from "@/features/sql-editor/components/SqlEditor";
import { ValidationStatus } from "@/features/sql-editor/components/ValidationStatus";
import { metadataCompletionSource } from "@/features/sql-editor/hooks/sql-completion";
import { defaultJobName, useEditorScript } from "@/features/sql-editor/hooks/use-editor-script";
import { useLivePreviewSession } from "@/features/sql-editor/hooks/use-live-preview";
import { usePreview } from "@/features/sql-editor/hooks/use-preview";
import { useValidation } from "@/features/sql-editor/hooks/use-validation";
import { useTeam } from "@/hooks/use-team";
import { fieldErrors } from "@/lib/api-client";
import { catalogNamesQuery } from "@/lib/queries/catalogs";

// a script that reads FROM STREAM(…) can also be previewed live (the server decides what is streaming)
const STREAMING = /\bSTREAM\s*\(/i;

/** Write Spark SQL with completion and live validation; Preview runs it interactively, Run submits a job run. */
export function SqlEditorPage() {
  const { team, canRunSql } = useTeam();
  useWarmEngine(team, canRunSql); // the team's engine starts now, not at the first statement
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const script = useEditorScript(team, params.get("job"), params.get("sql"));
  const { sqlText, setSqlText, jobId, setJobId, jobName, setJobName, defaultCatalog, setDefaultCatalog, jobs } = script;
  // validate, preview and run all resolve unqualified names in the picked default catalog
  const { validation, diagnostics, checking } = useValidation(team, sqlText, canRunSql, jobId, defaultCatalog);
  const { preview, started: previewStarted, ms: previewMs, start: startPreview } = usePreview(team);
  const live = useLivePreviewSession(team);
  const { startLive, liveId } = live;
  const run = useSaveAndRun(team);
  const deploy = useDeployStream(team);
  const catalogs = useQuery(catalogNamesQuery(team));
  const streaming = STREAMING.test(sqlText);
  // completion reads the team and default catalog when it runs; the editor always calls the newest source
  const completion = useMemo(() => metadataCompletionSource(qc, () => team, () => defaultCatalog), [qc, team, defaultCatalog]);

  // the preview reads materialized views and their sources at one consistent cut when asked (docs/materialized-views.md)
  const [consistent, setConsistent] = useState(false);
  const doPreview = () => {
    if (!canRunSql || !sqlText.trim() || preview.isPending) return;
    startPreview(sqlText, jobId, defaultCatalog, consistent);
  };
  const doLive = () => {
    if (!canRunSql || !sqlText.trim() || startLive.isPending) return;
    live.start(sqlText, defaultCatalog);
  };
  const doRun = () => {
    if (!canRunSql || !sqlText.trim() || run.isPending) return;
    run.mutate(
      { jobId, input: { name: jobName.trim() || defaultJobName(), sql: sqlText, default_catalog: defaultCatalog } },
      {
        onSuccess: ({ job, run: r }) => {
          setJobId(job.id);
          const next = new URLSearchParams(params);
          next.set("job", String(job.id));
          next.delete("sql");
          setParams(next, { replace: true });
          navigate(`/t/${encodeURIComponent(team)}/runs/${r.id}`);
        },
      },
    );
  };

  const doDeploy = () => {
    if (!canRunSql || !sqlText.trim() || deploy.isPending) return;
    // a batch job held by the editor stays batch: deploying makes a new streaming job beside it
    const streamingJobId = script.heldJob?.kind === "streaming" ? script.heldJob.id : null;
    deploy.mutate(
      { streamingJobId, input: { name: jobName.trim() || defaultJobName(), sql: sqlText, default_catalog: defaultCatalog } },
      { onSuccess: (job) => navigate(`/t/${encodeURIComponent(team)}/jobs/${job.id}`) },
    );
  };

  const newScript = () => {
    script.clear();
    preview.reset();
    run.reset();
    deploy.reset();
    live.reset();
    setParams(new URLSearchParams(), { replace: true });
  };

  // the job name's own errors describe its input; the script's and the catalog's are listed under the editor
  const nameErrors = [run.error, deploy.error].flatMap((e) => fieldErrors(e, "name"));
  const saveErrors = [run.error, deploy.error].flatMap((e) => [...fieldErrors(e, "sql"), ...fieldErrors(e, "default_catalog")]);

  return (
    <>
      <PageHeader title="SQL editor">
        <button type="button" className="btn" onClick={newScript}>
          New script
        </button>
      </PageHeader>
      <div className="card editor-card">
        <div className="editor-toolbar">
          <div className="field">
            <label htmlFor="job-select">Job</label>
            <select
              id="job-select"
              value={jobId ?? ""}
              onChange={(e) => {
                const next = new URLSearchParams(params);
                if (e.target.value) next.set("job", e.target.value);
                else next.delete("job");
                setParams(next, { replace: true });
                if (!e.target.value) newScript();
              }}
            >
              <option value="">(new job)</option>
              {jobs.data?.results.map((j) => (
                <option key={j.id} value={j.id}>
                  {j.name}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="job-name">Job name</label>
            <input id="job-name" value={jobName} onChange={(e) => setJobName(e.target.value)} maxLength={200}
                   aria-invalid={nameErrors.length > 0} aria-describedby={nameErrors.length > 0 ? "job-name-errors" : undefined} />
            {nameErrors.length > 0 && (
              <ul className="field-errors" id="job-name-errors">
                {nameErrors.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            )}
          </div>
          <div className="field">
            <label htmlFor="default-catalog">Default catalog</label>
            <select id="default-catalog" value={defaultCatalog} onChange={(e) => setDefaultCatalog(e.target.value)}>
              <option value="">(none: use catalog.database.table)</option>
              {catalogs.data?.map((c) => (
                <option key={c.catalog_name} value={c.catalog_name}>
                  {c.catalog_name} ({c.catalog_type})
                </option>
              ))}
            </select>
          </div>
        </div>
        {jobs.error && <ErrorBox error={jobs.error} title="Could not load jobs" onRetry={() => jobs.refetch()} />}
        {catalogs.error && <ErrorBox error={catalogs.error} title="Could not load catalogs for completion" onRetry={() => catalogs.refetch()} />}
        <SqlEditor value={sqlText} onChange={setSqlText} diagnostics={diagnostics} completion={completion} onPreview={doPreview} onRun={doRun} />
        {canRunSql && <ValidationStatus empty={!sqlText.trim()} checking={checking} error={validation.error} result={validation.data} />}
        {canRunSql ? (
          <div className="form-actions">
            <button type="button" className="btn" onClick={doPreview} disabled={!sqlText.trim() || preview.isPending} title="Ctrl+Enter">
              {preview.isPending ? "Previewing…" : "Preview"}
            </button>
            <label title="Read every Delta table at versions that reflect the same versions of their common upstream tables">
              <input type="checkbox" checked={consistent} onChange={(e) => setConsistent(e.target.checked)} data-testid="preview-consistent" />{" "}
              Consistent read
            </label>
            {streaming && (
              <button type="button" className="btn" onClick={doLive} disabled={startLive.isPending} title="Run the streaming query for a few seconds">
                {startLive.isPending ? "Starting…" : "Live"}
              </button>
            )}
            {streaming && (
              <button type="button" className="btn" onClick={doDeploy} disabled={deploy.isPending} title="Save as a streaming job and open its page">
                {deploy.isPending ? "Deploying…" : "Deploy as streaming job"}
              </button>
            )}
            <button type="button" className="btn primary" onClick={doRun} disabled={!sqlText.trim() || run.isPending} title="Ctrl+Shift+Enter">
              {run.isPending ? "Submitting…" : "Run"}
            </button>
          </div>
        ) : (
          <p className="muted">Viewers can read and validate SQL; a developer or admin runs it.</p>
        )}
        {saveErrors.length > 0 && (
          <ul className="field-errors" id="save-errors" aria-label="Why the job was not saved">
            {saveErrors.map((m) => (
              <li key={m}>{m}</li>
            ))}
          </ul>
        )}
        {run.error && <ErrorBox error={run.error} title="Could not submit the run" />}
        {deploy.error && <ErrorBox error={deploy.error} title="Could not deploy the streaming job" />}
      </div>
      <PreviewSection preview={preview} started={previewStarted} ms={previewMs} />
      {startLive.error && <ErrorBox error={startLive.error} title="Could not start the live preview" />}
      {liveId && <LivePreviewPanel key={liveId} team={team} id={liveId} />}
    </>
  );
}
