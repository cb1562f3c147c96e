import { useState, type FormEvent } from "react";

import { ErrorBox } from "@/components/Status";
import { useCreateSchedule } from "@/features/jobs/api/create-schedule";
import { useSchedulePreview } from "@/features/jobs/api/preview-schedule";
import { useUpdateSchedule } from "@/features/jobs/api/update-schedule";
import { FireTimes } from "@/features/jobs/components/FireTimes";
import type { Schedule } from "@/features/jobs/types";
import { useDebounced } from "@/hooks/use-debounced";
import { fieldErrors } from "@/lib/api-client";

const BROWSER_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** A schedule of one job, new or (`schedule` given) being changed: cron + time zone with the next five fire
 * times shown as you type, and policies. `onDone` runs after a change is saved. */
export function ScheduleEditor({ team, jobId, schedule, onDone }: {
  team: string; jobId: number; schedule?: Schedule; onDone?: () => void;
}) {
  const [name, setName] = useState(schedule?.name ?? "nightly");
  const [cron, setCron] = useState(schedule?.cron ?? "30 2 * * *");
  const [timeZone, setTimeZone] = useState(schedule?.time_zone ?? BROWSER_ZONE);
  const [catchup, setCatchup] = useState<"skip" | "latest">(schedule?.catchup ?? "skip");
  const [concurrency, setConcurrency] = useState<"skip" | "queue">(schedule?.concurrency ?? "skip");
  const [retries, setRetries] = useState(schedule?.max_retries ?? 0);
  const [overrides, setOverrides] = useState(schedule ? JSON.stringify(schedule.parameters) : "{}");
  const [overridesError, setOverridesError] = useState<string | null>(null);
  const preview = useSchedulePreview(team, useDebounced(cron, 250), useDebounced(timeZone, 250));
  const create = useCreateSchedule(team);
  const update = useUpdateSchedule(team);
  const save = schedule ? update : create;
  const prefix = schedule ? `schedule-${schedule.id}` : "schedule";

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
    const fields = { name, cron, time_zone: timeZone, catchup, concurrency, max_retries: retries, parameters };
    if (schedule) {
      update.mutate({ id: schedule.id, input: fields }, { onSuccess: () => onDone?.() });
    } else {
      create.mutate({ job: jobId, retry_backoff_seconds: 60, ...fields });
    }
  };

  const title = schedule ? `Edit schedule ${schedule.name}` : "New schedule";
  return (
    <form className="schedule-editor card" onSubmit={submit} aria-label={title}>
      <h3>{title}</h3>
      <div className="field">
        <label htmlFor={`${prefix}-name`}>Name</label>
        <input id={`${prefix}-name`} value={name} onChange={(e) => setName(e.target.value)} required />
        {fieldErrors(save.error, "name").map((m) => <p key={m} className="error-text">{m}</p>)}
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-cron`}>Cron (minute hour day month weekday)</label>
        <input id={`${prefix}-cron`} value={cron} onChange={(e) => setCron(e.target.value)} spellCheck={false} required />
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-tz`}>Time zone</label>
        <input id={`${prefix}-tz`} value={timeZone} onChange={(e) => setTimeZone(e.target.value)} spellCheck={false} />
      </div>
      <div className="schedule-preview" aria-live="polite">
        <strong>Next fire times</strong>
        {preview.data && !preview.data.valid ? (
          <p className="error-text" data-testid="schedule-preview-error">{preview.data.error?.message}</p>
        ) : preview.data ? (
          <FireTimes times={preview.data.next_fire_times}
                     label={schedule ? `Next fire times of ${schedule.name} (preview)` : "Next fire times (preview)"} />
        ) : null}
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-catchup`}>Missed ticks</label>
        <select id={`${prefix}-catchup`} value={catchup} onChange={(e) => setCatchup(e.target.value as "skip" | "latest")}>
          <option value="skip">Skip them</option>
          <option value="latest">Run the latest one once</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-concurrency`}>When the previous run is still going</label>
        <select id={`${prefix}-concurrency`} value={concurrency}
                onChange={(e) => setConcurrency(e.target.value as "skip" | "queue")}>
          <option value="skip">Skip this tick</option>
          <option value="queue">Queue it</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-retries`}>Retries after a failed run</label>
        <input id={`${prefix}-retries`} type="number" min={0} max={10} value={retries}
               onChange={(e) => setRetries(Number(e.target.value))} />
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-parameters`}>Parameter values (JSON, over the job's defaults)</label>
        <input id={`${prefix}-parameters`} value={overrides} onChange={(e) => setOverrides(e.target.value)}
               spellCheck={false} />
        {overridesError && <p className="error-text">{overridesError}</p>}
      </div>
      {save.error ? <ErrorBox error={save.error} title="Not saved" /> : null}
      <div className="form-actions">
        <button type="submit" className="btn primary" disabled={save.isPending}>
          {schedule ? "Save changes" : "Create schedule"}
        </button>
        {schedule && (
          <button type="button" className="btn" onClick={() => onDone?.()}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
