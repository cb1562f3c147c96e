import { useState, type FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";

import { ConfirmDialog } from "@/components/ConfirmDialog";
import { FieldErrors } from "@/components/FieldErrors";
import { EmptyState, ErrorBox, Loading, PageHeader } from "@/components/Status";
import { useChannels, useCreateChannel, useDeleteChannel, useTestChannel } from "@/features/alerts/api/channels";
import { useCreateRule, useDeleteRule, useRules } from "@/features/alerts/api/rules";
import { CHANNEL_KINDS, EVENTS, type AlertEvent, type Channel, type ChannelKind } from "@/features/alerts/types";
import { useTeam } from "@/hooks/use-team";
import { fieldErrors } from "@/lib/api-client";
import { formatDateTime } from "@/lib/format";
import { jobListQuery } from "@/lib/queries/jobs";

function target(c: Channel): string {
  if (c.kind === "email") return c.recipients.join(", ");
  if (c.kind === "slack") return "incoming webhook (hidden)";
  return c.url ?? "";
}

/** Alert channels (where alerts go, with "Send test" and the last error) and rules (what sends them). Viewers
 * read; team admins change them. */
export function AlertsPage() {
  const { team, isAdmin } = useTeam();
  return (
    <>
      <PageHeader title="Alerts" />
      <p className="muted">
        One alert per incident, and a message when it is resolved. See docs/alerts.md for the webhook signature.
      </p>
      <ChannelsSection team={team} isAdmin={isAdmin} />
      <RulesSection team={team} isAdmin={isAdmin} />
    </>
  );
}

function ChannelsSection({ team, isAdmin }: { team: string; isAdmin: boolean }) {
  const q = useChannels(team);
  const create = useCreateChannel(team);
  const remove = useDeleteChannel(team);
  const test = useTestChannel(team);
  const [name, setName] = useState("");
  const [kind, setKind] = useState<ChannelKind>("webhook");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const [recipients, setRecipients] = useState("");
  const [removing, setRemoving] = useState<Channel | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const input =
      kind === "email"
        ? { name, kind, recipients: recipients.split(",").map((r) => r.trim()).filter(Boolean) }
        : kind === "slack"
          ? { name, kind, url }
          : { name, kind, url, secret };
    create.mutate(input, {
      onSuccess: () => {
        setName("");
        setUrl("");
        setSecret("");
        setRecipients("");
      },
    });
  };

  return (
    <section aria-labelledby="alert-channels-title">
      <h2 id="alert-channels-title">Channels</h2>
      {isAdmin && (
        <form className="card inline-form" onSubmit={submit} aria-label="Add a channel">
          <div className="field">
            <label htmlFor="channel-name">Name</label>
            <input id="channel-name" value={name} onChange={(e) => setName(e.target.value)} required autoComplete="off" />
            <FieldErrors id="channel-name-errors" messages={fieldErrors(create.error, "name")} />
          </div>
          <div className="field">
            <label htmlFor="channel-kind">Kind</label>
            <select id="channel-kind" value={kind} onChange={(e) => setKind(e.target.value as ChannelKind)}>
              {CHANNEL_KINDS.map((k) => (
                <option key={k.value} value={k.value}>
                  {k.label}
                </option>
              ))}
            </select>
          </div>
          {kind === "email" ? (
            <div className="field">
              <label htmlFor="channel-recipients">Recipients (comma-separated)</label>
              <input id="channel-recipients" value={recipients} onChange={(e) => setRecipients(e.target.value)} required />
              <FieldErrors id="channel-recipients-errors" messages={fieldErrors(create.error, "recipients")} />
            </div>
          ) : (
            <div className="field">
              <label htmlFor="channel-url">{kind === "slack" ? "Incoming-webhook URL (kept secret)" : "URL"}</label>
              <input id="channel-url" type={kind === "slack" ? "password" : "url"} value={url} onChange={(e) => setUrl(e.target.value)} required autoComplete="off" />
              <FieldErrors id="channel-url-errors" messages={fieldErrors(create.error, "url")} />
            </div>
          )}
          {kind === "webhook" && (
            <div className="field">
              <label htmlFor="channel-secret">Signing secret (write-only)</label>
              <input id="channel-secret" type="password" value={secret} onChange={(e) => setSecret(e.target.value)} required minLength={16} autoComplete="new-password" />
              <FieldErrors id="channel-secret-errors" messages={fieldErrors(create.error, "secret")} />
            </div>
          )}
          <button type="submit" className="btn primary" disabled={create.isPending}>
            {create.isPending ? "Adding…" : "Add channel"}
          </button>
          {create.error && fieldErrors(create.error, "name").length === 0 && <ErrorBox error={create.error} title="Could not add the channel" />}
        </form>
      )}
      {test.data && (
        <p role="status" className={test.data.ok ? "muted" : "error"}>
          {test.data.ok ? "Test alert sent." : `Test alert not sent: ${test.data.error}`}
        </p>
      )}
      {test.error && <ErrorBox error={test.error} title="Could not send the test" />}
      {remove.error && <ErrorBox error={remove.error} title="Could not delete the channel" />}
      {q.isPending ? (
        <Loading label="Loading channels…" />
      ) : q.error ? (
        <ErrorBox error={q.error} title="Could not load channels" onRetry={() => q.refetch()} />
      ) : q.data.length === 0 ? (
        <EmptyState title="No channels yet">
          <p>A channel is where alerts go: a signed webhook, a Slack-compatible webhook or e-mail.</p>
        </EmptyState>
      ) : (
        <table className="table responsive" aria-label="Alert channels">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Sends to</th>
              <th scope="col">Last sent</th>
              <th scope="col">Last error</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {q.data.map((c) => (
              <tr key={c.id}>
                <td data-label="Name">{c.name}</td>
                <td data-label="Kind">{c.kind}</td>
                <td data-label="Sends to">{target(c)}</td>
                <td data-label="Last sent">{c.last_sent_at ? formatDateTime(c.last_sent_at) : "never"}</td>
                <td data-label="Last error">
                  {c.last_error ? (
                    <span className="error" title={c.last_error_at ? formatDateTime(c.last_error_at) : undefined}>
                      {c.last_error}
                    </span>
                  ) : (
                    "—"
                  )}
                </td>
                <td data-label="">
                  {isAdmin && (
                    <>
                      <button type="button" className="btn small" disabled={test.isPending} onClick={() => test.mutate(c.id)}>
                        Send test
                      </button>{" "}
                      <button type="button" className="btn small danger" onClick={() => setRemoving(c)}>
                        Delete
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={removing !== null}
        title={`Delete channel ${removing?.name ?? ""}?`}
        message="Rules keep their other channels; alerts waiting for this one are dropped."
        confirmLabel="Delete channel"
        busy={remove.isPending}
        onCancel={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate(removing.id, { onSettled: () => setRemoving(null) })}
      />
    </section>
  );
}

function RulesSection({ team, isAdmin }: { team: string; isAdmin: boolean }) {
  const rules = useRules(team);
  const channels = useChannels(team);
  const jobs = useQuery(jobListQuery(team));
  const create = useCreateRule(team);
  const remove = useDeleteRule(team);
  const [name, setName] = useState("");
  const [event, setEvent] = useState<AlertEvent>("run_failed");
  const [job, setJob] = useState("");
  const [chosen, setChosen] = useState<number[]>([]);
  const [minutes, setMinutes] = useState("");
  const [count, setCount] = useState("");
  const needs = EVENTS.find((e) => e.value === event)?.needs ?? [];
  const channelName = (id: number) => channels.data?.find((c) => c.id === id)?.name ?? `#${id}`;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      {
        name,
        event,
        job: job ? Number(job) : null,
        channels: chosen,
        minutes: needs.includes("minutes") ? Number(minutes) : null,
        count: needs.includes("count") ? Number(count) : null,
      },
      { onSuccess: () => setName("") },
    );
  };

  return (
    <section aria-labelledby="alert-rules-title">
      <h2 id="alert-rules-title">Rules</h2>
      {isAdmin && (
        <form className="card inline-form" onSubmit={submit} aria-label="Add a rule">
          <div className="field">
            <label htmlFor="rule-name">Name</label>
            <input id="rule-name" value={name} onChange={(e) => setName(e.target.value)} required autoComplete="off" />
            <FieldErrors id="rule-name-errors" messages={fieldErrors(create.error, "name")} />
          </div>
          <div className="field">
            <label htmlFor="rule-event">When</label>
            <select id="rule-event" value={event} onChange={(e) => setEvent(e.target.value as AlertEvent)}>
              {EVENTS.map((ev) => (
                <option key={ev.value} value={ev.value}>
                  {ev.label}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="rule-job">Job</label>
            <select id="rule-job" value={job} onChange={(e) => setJob(e.target.value)}>
              <option value="">Every job of the team</option>
              {jobs.data?.results.map((j) => (
                <option key={j.id} value={j.id}>
                  {j.name}
                </option>
              ))}
            </select>
          </div>
          {needs.includes("count") && (
            <div className="field">
              <label htmlFor="rule-count">More than (restarts)</label>
              <input id="rule-count" type="number" min={1} value={count} onChange={(e) => setCount(e.target.value)} required />
              <FieldErrors id="rule-count-errors" messages={fieldErrors(create.error, "count")} />
            </div>
          )}
          {needs.includes("minutes") && (
            <div className="field">
              <label htmlFor="rule-minutes">{event === "run_long" ? "Longer than (minutes)" : event === "stream_falling_behind" ? "For (minutes)" : "Within (minutes)"}</label>
              <input id="rule-minutes" type="number" min={1} value={minutes} onChange={(e) => setMinutes(e.target.value)} required />
              <FieldErrors id="rule-minutes-errors" messages={fieldErrors(create.error, "minutes")} />
            </div>
          )}
          <fieldset className="field">
            <legend>Channels</legend>
            {channels.data?.map((c) => (
              <label key={c.id} className="field-inline">
                <input
                  type="checkbox"
                  checked={chosen.includes(c.id)}
                  onChange={(e) => setChosen(e.target.checked ? [...chosen, c.id] : chosen.filter((id) => id !== c.id))}
                />{" "}
                {c.name}
              </label>
            ))}
            <FieldErrors id="rule-channels-errors" messages={fieldErrors(create.error, "channels")} />
          </fieldset>
          <button type="submit" className="btn primary" disabled={create.isPending || chosen.length === 0}>
            {create.isPending ? "Adding…" : "Add rule"}
          </button>
          {create.error && fieldErrors(create.error, "name").length === 0 && <ErrorBox error={create.error} title="Could not add the rule" />}
        </form>
      )}
      {remove.error && <ErrorBox error={remove.error} title="Could not delete the rule" />}
      {rules.isPending ? (
        <Loading label="Loading rules…" />
      ) : rules.error ? (
        <ErrorBox error={rules.error} title="Could not load rules" onRetry={() => rules.refetch()} />
      ) : rules.data.length === 0 ? (
        <EmptyState title="No rules yet">
          <p>A rule says which event, of which job, sends an alert to which channels.</p>
        </EmptyState>
      ) : (
        <table className="table responsive" aria-label="Alert rules">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">When</th>
              <th scope="col">Job</th>
              <th scope="col">Channels</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.data.map((r) => (
              <tr key={r.id}>
                <td data-label="Name">{r.name}</td>
                <td data-label="When">
                  {EVENTS.find((e) => e.value === r.event)?.label ?? r.event}
                  {r.count !== null && ` (N = ${r.count})`}
                  {r.minutes !== null && ` (${r.minutes} min)`}
                </td>
                <td data-label="Job">{r.job_name ?? "every job"}</td>
                <td data-label="Channels">{r.channels.map(channelName).join(", ")}</td>
                <td data-label="">
                  {isAdmin && (
                    <button type="button" className="btn small danger" disabled={remove.isPending} onClick={() => remove.mutate(r.id)}>
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
