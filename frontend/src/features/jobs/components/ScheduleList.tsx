import { useState } from "react";
import { Link } from "react-router";

import { ErrorBox } from "@/components/Status";
import { useToggleSchedule } from "@/features/jobs/api/toggle-schedule";
import { useDeleteSchedule } from "@/features/jobs/api/update-schedule";
import { FireTimes, formatFireTime } from "@/features/jobs/components/FireTimes";
import { ScheduleEditor } from "@/features/jobs/components/ScheduleEditor";
import type { Schedule } from "@/features/jobs/types";

/** A job's schedules: state, next five fire times, recent fires with their runs; pause/resume, edit, delete. */
export function ScheduleList({ team, schedules, canEdit }: { team: string; schedules: Schedule[]; canEdit: boolean }) {
  const toggle = useToggleSchedule(team);
  const remove = useDeleteSchedule(team);
  const [editing, setEditing] = useState<number | null>(null);
  const [deleting, setDeleting] = useState<number | null>(null);
  const base = `/t/${encodeURIComponent(team)}`;
  if (schedules.length === 0) return <p className="muted">No schedules yet.</p>;
  return (
    <>
      {toggle.error ? <ErrorBox error={toggle.error} /> : null}
      {remove.error ? <ErrorBox error={remove.error} title="Not deleted" /> : null}
      {schedules.map((s) => editing === s.id ? (
        <ScheduleEditor key={s.id} team={team} jobId={s.job} schedule={s} onDone={() => setEditing(null)} />
      ) : (
        <section key={s.id} className="card schedule" aria-label={`Schedule ${s.name}`}>
          <header className="schedule-head">
            <h3>{s.name}</h3>
            <code>{s.cron}</code> <span className="muted">{s.time_zone}</span>{" "}
            <span className={`badge ${s.enabled ? "badge-ok" : "badge-muted"}`} data-testid="schedule-state">
              {s.enabled ? "Active" : "Paused"}
            </span>
            {canEdit && (
              <button
                type="button"
                className="btn small"
                disabled={toggle.isPending}
                onClick={() => toggle.mutate({ id: s.id, action: s.enabled ? "pause" : "resume" })}
              >
                {s.enabled ? "Pause" : "Resume"}
              </button>
            )}
            {canEdit && (
              <button type="button" className="btn small" onClick={() => setEditing(s.id)}>
                Edit
              </button>
            )}
            {canEdit && deleting !== s.id && (
              <button type="button" className="btn small danger" onClick={() => setDeleting(s.id)}>
                Delete
              </button>
            )}
          </header>
          {deleting === s.id && (
            <p className="confirm" role="group" aria-label={`Delete schedule ${s.name}`}>
              Delete schedule {s.name}? It stops firing; its past runs stay.{" "}
              <button type="button" className="btn small danger" disabled={remove.isPending}
                      onClick={() => remove.mutate(s.id, { onSettled: () => setDeleting(null) })}>
                Delete schedule
              </button>{" "}
              <button type="button" className="btn small" onClick={() => setDeleting(null)}>
                Keep it
              </button>
            </p>
          )}
          <p className="muted">
            Missed ticks: {s.catchup === "skip" ? "skipped" : "latest runs once"} · previous run still going:{" "}
            {s.concurrency === "skip" ? "skip" : "queue"} · retries: {s.max_retries}
            {Object.keys(s.parameters).length > 0 &&
              ` · parameters: ${Object.entries(s.parameters).map(([k, v]) => `${k} = ${String(v)}`).join(", ")}`}
          </p>
          {s.enabled ? (
            <FireTimes times={s.next_fire_times} label={`Next fire times of ${s.name}`} />
          ) : (
            <p className="muted">Paused: it fires again from the next tick after you resume it.</p>
          )}
          {s.recent_fires.length > 0 && (
            <ul className="recent-fires" aria-label="Recent fires">
              {s.recent_fires.map((f) => (
                <li key={f.fire_time}>
                  {formatFireTime(f.fire_time)} — {f.status}
                  {f.run && (
                    <>
                      {" "}
                      <Link to={`${base}/runs/${f.run}`}>run {f.run}</Link> {f.run_status}
                    </>
                  )}
                  {f.message && <span className="muted"> {f.message}</span>}
                </li>
              ))}
            </ul>
          )}
        </section>
      ))}
    </>
  );
}
