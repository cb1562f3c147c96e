import { useState, type FormEvent } from "react";

import { ErrorBox } from "@/components/Status";
import { useCreateSchedule } from "@/features/jobs/api/create-schedule";
import { useSchedulePreview } from "@/features/jobs/api/preview-schedule";
import { FireTimes } from "@/features/jobs/components/FireTimes";
import { useDebounced } from "@/hooks/use-debounced";
import { fieldErrors } from "@/lib/api-client";

const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** A new schedule of one job: cron + time zone with the next five fire times shown as you type, and policies. */
export function ScheduleEditor({ team, jobId }: { team: string; jobId: number }) {
  const [name, setName] = useState("nightly");
  const [cron, setCron] = useState("30 2 * * *");
  const [timeZone, setTimeZone] = useState(BROWSER_ZONE);
  const [catchup, setCatchup] = useState<"skip" | "latest">("skip");
  const [concurrency, setConcurrency] = useState<"skip" | "queue">("skip");
  const [retries, setRetries] = useState(0);
  const [overrides, setOverrides] = useState("{}");
  const [overridesError, setOverridesError] = useState<string | null>(null);
  const preview = useSchedulePreview(team, useDebounced(cron, 250), useDebounced(timeZone, 250));
  const create = useCreateSchedule(team);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    let parameters: Record<string, unknown>;
    try {
      parameters = JSON.parse(overrides || "{}") as Record<string, unknown>;
      if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) throw new Error();
    } catch {
      setOverridesError('Write an object, e.g. {"min_amount": "25"}.');
      return;
    }
    setOverridesError(null);
    create.mutate({
      job: jobId, name, cron, time_zone: timeZone, catchup, concurrency, max_retries: retries,
      retry_backoff_seconds: 60, parameters,
    });
  };

  return (
    <form className="schedule-editor card" onSubmit={submit} aria-label="New schedule">
      <h3>New schedule</h3>
      <div className="field">
        <label htmlFor="schedule-name">Name</label>
        <input id="schedule-name" value={name} onChange={(e) => setName(e.target.value)} required />
        {fieldErrors(create.error, "name").map((m) => <p key={m} className="error-text">{m}</p>)}
      </div>
      <div className="field">
        <label htmlFor="schedule-cron">Cron (minute hour day month weekday)</label>
        <input id="schedule-cron" value={cron} onChange={(e) => setCron(e.target.value)} spellCheck={false} required />
      </div>
      <div className="field">
        <label htmlFor="schedule-tz">Time zone</label>
        <input id="schedule-tz" value={timeZone} onChange={(e) => setTimeZone(e.target.value)} spellCheck={false} />
      </div>
      <div className="schedule-preview" aria-live="polite">
        <strong>Next fire times</strong>
        {preview.data && !preview.data.valid ? (
          <p className="error-text" data-testid="schedule-preview-error">{preview.data.error?.message}</p>
        ) : preview.data ? (
          <FireTimes times={preview.data.next_fire_times} label="Next fire times (preview)" />
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="schedule-catchup">Missed ticks</label>
        <select id="schedule-catchup" value={catchup} onChange={(e) => setCatchup(e.target.value as "skip" | "latest")}>
          <option value="skip">Skip them</option>
          <option value="latest">Run the latest one once</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="schedule-concurrency">When the previous run is still going</label>
        <select id="schedule-concurrency" value={concurrency}
                onChange={(e) => setConcurrency(e.target.value as "skip" | "queue")}>
          <option value="skip">Skip this tick</option>
          <option value="queue">Queue it</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="schedule-retries">Retries after a failed run</label>
        <input id="schedule-retries" type="number" min={0} max={10} value={retries}
               onChange={(e) => setRetries(Number(e.target.value))} />
      </div>
      <div className="field">
        <label htmlFor="schedule-parameters">Parameter values (JSON, over the job's defaults)</label>
        <input id="schedule-parameters" value={overrides} onChange={(e) => setOverrides(e.target.value)}
               spellCheck={false} />
        {overridesError && <p className="error-text">{overridesError}</p>}
      </div>
      {create.error ? <ErrorBox error={create.error} title="Not saved" /> : null}
      <div className="form-actions">
        <button type="submit" className="btn primary" disabled={create.isPending}>
          Create schedule
        </button>
      </div>
    </form>
  );
}
