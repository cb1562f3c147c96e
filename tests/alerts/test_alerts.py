"""Alerts end to end with real receivers: a signed webhook on 127.0.0.1, a Slack-compatible endpoint, e-mail through
an SMTP server (aiosmtpd). State changes go through the services that make them (the worker's `run_finish`, the
reaper, the stream supervisor), so each alert's outbox row commits with the change; `deliveries_send` is what the
`alerts.deliver` task runs."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from rest_framework.test import APIClient

from alerts.models import AlertDelivery, DeliveryStatus, StreamRestart
from alerts.services.channels import channel_create
from alerts.services.delivery import deliveries_send
from alerts.services.watch import alerts_watch
from jobs.models import JobRun, RunStatus, SqlJob
from jobs.services.runs import run_finish, runs_reap
from schedules.models import FireStatus, Schedule, ScheduleFire
from schedules.services.tick import schedules_tick
from streams.models import Desired, StreamMetric, StreamState, StreamStatus
from streams.services.supervisor import Supervisor
from teams.models import Team
from tests.alerts.conftest import end_run, running_run
from tests.support.receivers import WEBHOOK_SECRET, Receiver
from tests.support.secrets import register_secret
from tests.support.servers import wait_until

pytestmark = pytest.mark.django_db
ERROR = "[TABLE_OR_VIEW_NOT_FOUND] The table or view `sales`.`orderz` cannot be found.\n  at org.apache.spark.Foo"
FIRST_LINE = ERROR.splitlines()[0]


def webhook(client: APIClient, receiver: Receiver, name: str = "ops-hook") -> dict[str, Any]:
    resp = client.post("/api/v1/teams/acme/alert-channels/", {
        "name": name, "kind": "webhook", "url": receiver.url, "secret": WEBHOOK_SECRET}, format="json")
    assert resp.status_code == 201, resp.content
    return dict(resp.json())


def rule(client: APIClient, channel: int, event: str = "run_failed", job: int | None = None,
         name: str = "failures") -> dict[str, Any]:
    resp = client.post("/api/v1/teams/acme/alert-rules/", {
        "name": name, "event": event, "job": job, "channels": [channel]}, format="json")
    assert resp.status_code == 201, resp.content
    return dict(resp.json())


def test_one_signed_alert_per_incident_then_resolved(admin_client: APIClient, job: SqlJob, receiver: Receiver) -> None:
    channel = webhook(admin_client, receiver)
    assert channel["secret_set"] is True and "secret" not in channel and WEBHOOK_SECRET not in str(channel)
    rule(admin_client, channel["id"])  # every job of the team

    first = end_run(job, succeeded=False, message=ERROR)
    end_run(job, succeeded=False, message=ERROR)  # the same incident: no second alert
    deliveries_send()
    assert len(receiver.received) == 1
    alert = receiver.received[0]
    assert alert.signed_with(WEBHOOK_SECRET)
    assert not alert.signed_with(WEBHOOK_SECRET + "x")
    body = alert.json
    assert body["kind"] == "firing" and body["event"] == "run_failed" and body["team"] == "acme"
    assert f"Run {first.id} of job 'nightly-orders' FAILED" in body["title"]
    assert body["text"] == FIRST_LINE  # the error's first line, not the JVM frames
    assert body["link"].endswith(f"/t/acme/runs/{first.id}")

    fixed = end_run(job, succeeded=True)
    deliveries_send()
    assert len(receiver.received) == 2
    resolved = receiver.received[1]
    assert resolved.signed_with(WEBHOOK_SECRET)
    assert resolved.json["kind"] == "resolved" and f"run {fixed.id}" in resolved.json["title"]

    end_run(job, succeeded=False, message="boom again")  # a new incident after it cleared
    deliveries_send()
    deliveries_send()
    assert [r.json["kind"] for r in receiver.received] == ["firing", "resolved", "firing"]
    assert receiver.received[2].json["text"] == "boom again"
    listed = admin_client.get(f"/api/v1/teams/acme/alert-channels/{channel['id']}/").json()
    assert [d["status"] for d in listed["recent_deliveries"]] == ["sent", "sent", "sent"]
    assert listed["last_error"] == "" and listed["last_sent_at"]


def test_the_outbox_row_commits_with_the_run_end_and_rolls_back_with_it(admin_client: APIClient, job: SqlJob,
                                                                         receiver: Receiver) -> None:
    rule(admin_client, webhook(admin_client, receiver)["id"], job=job.id)
    run = running_run(job)
    with pytest.raises(RuntimeError), transaction.atomic():
        run_finish(run=run, succeeded=False, error={"message": ERROR}, statements=[], catalogs_used=[],
                   result=None, progress={})
        assert AlertDelivery.objects.count() == 1  # written inside the run's end transaction
        raise RuntimeError("the transaction ending the run fails after the update")
    assert JobRun.objects.get(id=run.id).status == RunStatus.RUNNING
    assert AlertDelivery.objects.count() == 0
    deliveries_send()
    assert receiver.received == []


def test_receiver_down_alerts_arrive_after_it_returns_in_order_once(admin_client: APIClient, team: Team,
                                                                   receiver: Receiver, settings: Any) -> None:
    settings.LAKEPORT_ALERT_RETRY_SECONDS = 0.05
    channel = webhook(admin_client, receiver)
    rule(admin_client, channel["id"])
    first, second = (SqlJob.objects.create(team=team, name=n, sql="SELECT 1") for n in ("first-job", "second-job"))
    receiver.stop()
    end_run(first, succeeded=False, message="first failure")
    end_run(second, succeeded=False, message="second failure")
    report = deliveries_send()
    assert report.sent == [] and len(report.retrying) == 1  # the second waits behind the first (order per channel)
    shown = admin_client.get(f"/api/v1/teams/acme/alert-channels/{channel['id']}/").json()
    assert "Could not reach the receiver" in shown["last_error"] and shown["last_error_at"]
    wait_until(lambda: deliveries_send().retrying, what="a second failed try after the backoff")
    assert AlertDelivery.objects.get(message__text="first failure").attempts >= 2

    receiver.start()

    def both_arrived() -> bool:
        deliveries_send()  # what beat's periodic `alerts.deliver` does
        return len(receiver.received) == 2

    wait_until(both_arrived, timeout=30, what="both alerts after the receiver returned")
    for _ in range(3):
        deliveries_send()
    assert [r.json["text"] for r in receiver.received] == ["first failure", "second failure"]
    assert all(r.signed_with(WEBHOOK_SECRET) for r in receiver.received)
    assert set(AlertDelivery.objects.values_list("status", flat=True)) == {DeliveryStatus.SENT}


def test_a_sender_killed_mid_send_sends_once_more_never_none(admin_client: APIClient, job: SqlJob,
                                                             receiver: Receiver, settings: Any) -> None:
    rule(admin_client, webhook(admin_client, receiver)["id"])
    end_run(job, succeeded=False, message=ERROR)
    # a worker claimed the row (SENDING) and died before it could send or mark it sent
    AlertDelivery.objects.update(status=DeliveryStatus.SENDING, attempts=1,
                                 claimed_at=timezone.now() - timedelta(seconds=10))
    settings.LAKEPORT_ALERT_CLAIM_SECONDS = 60
    deliveries_send()
    assert receiver.received == []  # its claim has not expired yet: maybe it is still sending
    settings.LAKEPORT_ALERT_CLAIM_SECONDS = 5
    deliveries_send()
    deliveries_send()
    assert len(receiver.received) == 1


def test_a_run_failed_by_the_reaper_after_its_retries_alerts_once(admin_client: APIClient, job: SqlJob,
                                                                  receiver: Receiver) -> None:
    rule(admin_client, webhook(admin_client, receiver)["id"], job=job.id)
    stale = timezone.now() - timedelta(hours=1)
    retried = running_run(job)
    JobRun.objects.filter(id=retried.id).update(heartbeat_at=stale, max_retries=1)
    lost = running_run(job)
    JobRun.objects.filter(id=lost.id).update(heartbeat_at=stale, max_retries=0)
    report = runs_reap()
    assert report.requeued == [retried.id] and report.failed == [lost.id]
    deliveries_send()
    assert len(receiver.received) == 1  # the re-queued run is not a failure (yet)
    assert f"Run {lost.id} " in receiver.received[0].json["title"]
    assert "worker lost" in receiver.received[0].json["text"].lower()


def test_each_failed_schedule_tick_is_one_alert(admin_client: APIClient, team: Team, job: SqlJob,
                                                receiver: Receiver) -> None:
    rule(admin_client, webhook(admin_client, receiver)["id"], event="schedule_run_failed")
    schedule = Schedule.objects.create(team=team, job=job, name="hourly", cron="0 * * * *", max_retries=1)
    base = timezone.now().replace(minute=0, second=0, microsecond=0)
    for hour in (1, 2):
        fire = ScheduleFire.objects.create(schedule=schedule, fire_time=base - timedelta(hours=hour),
                                           status=FireStatus.SUBMITTED, attempts=1)
        run = running_run(job)
        ScheduleFire.objects.filter(id=fire.id).update(run=run)
        run_finish(run=run, succeeded=False, error={"message": "tick failed"}, statements=[], catalogs_used=[],
                   result=None, progress={})
        deliveries_send()
        assert len(receiver.received) == hour - 1  # the schedule retries this tick once more: no alert yet
        retry = running_run(job)
        ScheduleFire.objects.filter(id=fire.id).update(run=retry, attempts=2)
        run_finish(run=retry, succeeded=False, error={"message": "tick failed"}, statements=[], catalogs_used=[],
                   result=None, progress={})
        deliveries_send()
        assert len(receiver.received) == hour
        assert f"tick {fire.fire_time:%Y-%m-%dT%H:%MZ} failed" in receiver.received[-1].json["title"]
    ok = running_run(job)
    ScheduleFire.objects.create(schedule=schedule, fire_time=base, status=FireStatus.SUBMITTED, attempts=1, run=ok)
    run_finish(run=ok, succeeded=True, error=None, statements=[], catalogs_used=[], result=None, progress={})
    deliveries_send()
    assert [r.json["kind"] for r in receiver.received] == ["firing", "firing", "resolved", "resolved"]


def test_a_failed_stream_alerts_once_and_its_recovery_resolves(admin_client: APIClient, team: Team,
                                                               receiver: Receiver) -> None:
    job = SqlJob.objects.create(team=team, name="clicks", sql="INSERT INTO x SELECT * FROM y", kind="streaming")
    rule(admin_client, webhook(admin_client, receiver)["id"], event="stream_failed", job=job.id)
    StreamState.objects.create(job=job, status=StreamStatus.RESTARTING, desired=Desired.RUNNING, lease_owner="t1")
    supervisor = Supervisor(job_id=job.id, token="t1")
    supervisor._set(status=StreamStatus.RESTARTING, last_error="driver died")  # restarting: not (yet) an alert
    supervisor._finish(StreamStatus.FAILED, last_error="Query terminated: source gone\nat frames")
    deliveries_send()
    assert len(receiver.received) == 1
    body = receiver.received[0].json
    assert body["event"] == "stream_failed" and body["text"] == "Query terminated: source gone"
    assert body["link"].endswith(f"/t/acme/jobs/{job.id}")
    # started again by a user, then the query runs: recovered
    StreamState.objects.filter(job=job).update(status=StreamStatus.STARTING, lease_owner="t2")
    Supervisor(job_id=job.id, token="t2").on_query_started(job, {"event": "query_started", "run_id": "r1"})  # type: ignore[typeddict-item]
    deliveries_send()
    assert [r.json["kind"] for r in receiver.received] == ["firing", "resolved"]


def test_email_channel_through_a_real_smtp_server(admin_client: APIClient, job: SqlJob, smtp_server: Any) -> None:
    resp = admin_client.post("/api/v1/teams/acme/alert-channels/", {
        "name": "oncall-mail", "kind": "email", "recipients": ["oncall@example.com", "lead@example.com"]},
        format="json")
    assert resp.status_code == 201, resp.content
    channel = resp.json()
    test = admin_client.post(f"/api/v1/teams/acme/alert-channels/{channel['id']}/test/")
    assert test.status_code == 200 and test.json()["ok"] is True, test.content
    assert len(smtp_server.messages) == 1
    assert sorted(smtp_server.messages[0][1]) == ["lead@example.com", "oncall@example.com"]
    assert "Test alert from Lakeport" in smtp_server.messages[0][2]
    rule(admin_client, channel["id"], job=job.id)
    run = end_run(job, succeeded=False, message=ERROR)
    deliveries_send()
    assert len(smtp_server.messages) == 2
    text = smtp_server.messages[1][2]
    assert f"Run {run.id} of job 'nightly-orders' FAILED" in text and FIRST_LINE in text
    assert "org.apache.spark.Foo" not in text


def test_slack_channel_hides_its_url_and_posts_text(admin_client: APIClient, job: SqlJob, receiver: Receiver) -> None:
    slack_url = f"http://127.0.0.1:{receiver.port}/services/T0001/B0002/{register_secret('xoxb9Slack2Token7Q')}"
    resp = admin_client.post("/api/v1/teams/acme/alert-channels/", {"name": "slack", "kind": "slack",
                                                                    "url": slack_url}, format="json")
    assert resp.status_code == 201, resp.content
    assert resp.json()["url"] is None and resp.json()["secret_set"] is True
    listing = admin_client.get("/api/v1/teams/acme/alert-channels/")
    assert "xoxb9Slack2Token7Q" not in listing.content.decode()
    rule(admin_client, resp.json()["id"])
    end_run(job, succeeded=False, message=ERROR)
    deliveries_send()
    assert len(receiver.received) == 1
    text = receiver.received[0].json["text"]
    assert "FAILED" in text and FIRST_LINE in text and "/t/acme/runs/" in text


def test_send_test_to_a_receiver_that_is_down_says_why(admin_client: APIClient, receiver: Receiver) -> None:
    channel = webhook(admin_client, receiver)
    receiver.stop()
    resp = admin_client.post(f"/api/v1/teams/acme/alert-channels/{channel['id']}/test/")
    assert resp.status_code == 200 and resp.json()["ok"] is False
    assert "Could not reach the receiver" in resp.json()["error"]
    assert admin_client.get(f"/api/v1/teams/acme/alert-channels/{channel['id']}/").json()["last_error"]
    receiver.start()
    ok = admin_client.post(f"/api/v1/teams/acme/alert-channels/{channel['id']}/test/")
    assert ok.json()["ok"] is True and len(receiver.received) == 1
    assert receiver.received[0].signed_with(WEBHOOK_SECRET) and receiver.received[0].json["kind"] == "test"


def test_bad_channels_and_rules_are_400s_naming_the_field(admin_client: APIClient, other_team: Team,
                                                          receiver: Receiver) -> None:
    cases = [({"name": "a", "kind": "webhook", "url": receiver.url}, "secret"),
             ({"name": "a", "kind": "webhook", "url": "ftp://x", "secret": WEBHOOK_SECRET}, "url"),
             ({"name": "a", "kind": "webhook", "url": receiver.url, "secret": "short"}, "secret"),
             ({"name": "a", "kind": "email", "recipients": ["not-an-address"]}, "recipients"),
             # the platform's own database and broker are never a receiver (as for catalogs)
             ({"name": "a", "kind": "webhook", "url": "http://127.0.0.1:5432/", "secret": WEBHOOK_SECRET}, "url"),
             ({"name": "a", "kind": "slack", "url": "http://localhost:6379/x"}, "url"),
             ({"name": "a", "kind": "pager"}, "kind")]
    for body, field in cases:
        resp = admin_client.post("/api/v1/teams/acme/alert-channels/", body, format="json")
        assert resp.status_code == 400, (body, resp.content)
        assert field in resp.json()["error"]["details"], (body, resp.json())
    theirs = channel_create(team=other_team, name="theirs", kind="email", recipients=["x@example.com"])
    resp = admin_client.post("/api/v1/teams/acme/alert-rules/", {"name": "r", "event": "run_failed",
                                                                 "channels": [theirs.id]}, format="json")
    assert resp.status_code == 400 and "channels" in resp.json()["error"]["details"]
    taken = webhook(admin_client, receiver)
    dup = admin_client.post("/api/v1/teams/acme/alert-channels/", {
        "name": taken["name"], "kind": "webhook", "url": receiver.url, "secret": WEBHOOK_SECRET}, format="json")
    assert dup.status_code == 409


def test_patch_keeps_an_omitted_secret(admin_client: APIClient, receiver: Receiver) -> None:
    channel = webhook(admin_client, receiver)
    resp = admin_client.patch(f"/api/v1/teams/acme/alert-channels/{channel['id']}/", {"name": "renamed"},
                              format="json")
    assert resp.status_code == 200 and resp.json()["name"] == "renamed" and resp.json()["secret_set"] is True
    admin_client.post(f"/api/v1/teams/acme/alert-channels/{channel['id']}/test/")
    assert receiver.received[-1].signed_with(WEBHOOK_SECRET)


def test_a_run_longer_than_the_rule_alerts_once_and_resolves_when_it_ends(admin_client: APIClient, job: SqlJob,
                                                                          receiver: Receiver) -> None:
    channel = webhook(admin_client, receiver)
    missing = admin_client.post("/api/v1/teams/acme/alert-rules/", {
        "name": "slow", "event": "run_long", "channels": [channel["id"]]}, format="json")
    assert missing.status_code == 400 and "minutes" in missing.json()["error"]["details"]
    created = admin_client.post("/api/v1/teams/acme/alert-rules/", {
        "name": "slow", "event": "run_long", "minutes": 30, "channels": [channel["id"]]}, format="json")
    assert created.status_code == 201 and created.json()["minutes"] == 30
    slow, quick = running_run(job), running_run(job)
    JobRun.objects.filter(id=slow.id).update(started_at=timezone.now() - timedelta(minutes=31))
    JobRun.objects.filter(id=quick.id).update(started_at=timezone.now() - timedelta(minutes=29))
    assert alerts_watch() == 1
    assert alerts_watch() == 0  # the same incident
    deliveries_send()
    assert len(receiver.received) == 1
    body = receiver.received[0].json
    assert body["event"] == "run_long" and f"Run {slow.id} " in body["title"] and "more than 30 minutes" in body["title"]
    run_finish(run=slow, succeeded=True, error=None, statements=[], catalogs_used=[], result=None, progress={})
    deliveries_send()
    assert [r.json["kind"] for r in receiver.received] == ["firing", "resolved"]


def test_a_stream_restarting_too_often_alerts_once_and_resolves_when_it_calms_down(
        admin_client: APIClient, team: Team, receiver: Receiver) -> None:
    job = SqlJob.objects.create(team=team, name="clicks", sql="INSERT INTO x SELECT * FROM y", kind="streaming")
    resp = admin_client.post("/api/v1/teams/acme/alert-rules/", {
        "name": "flapping", "event": "stream_restarting", "count": 2, "minutes": 10,
        "channels": [webhook(admin_client, receiver)["id"]]}, format="json")
    assert resp.status_code == 201, resp.content
    StreamState.objects.create(job=job, status=StreamStatus.RUNNING, desired=Desired.RUNNING, lease_owner="t1")
    supervisor = Supervisor(job_id=job.id, token="t1")
    supervisor._set(status=StreamStatus.RESTARTING)  # a user's restart: not a failure, not counted
    for n in range(3):
        supervisor._set(status=StreamStatus.RESTARTING, restarts=F("restarts") + 1, last_error=f"crash {n}")
        if n == 1:
            assert alerts_watch() == 0  # two restarts: within the rule
    assert alerts_watch() == 1
    assert alerts_watch() == 0
    deliveries_send()
    assert len(receiver.received) == 1
    assert "restarted 3 times in the last 10 minutes" in receiver.received[0].json["title"]
    StreamRestart.objects.update(at=timezone.now() - timedelta(minutes=11))  # time passes, no new restart
    alerts_watch()
    deliveries_send()
    assert [r.json["kind"] for r in receiver.received] == ["firing", "resolved"]


def test_a_channel_is_rate_limited_and_the_rest_follow_in_order(admin_client: APIClient, team: Team,
                                                               receiver: Receiver, settings: Any) -> None:
    settings.LAKEPORT_ALERT_CHANNEL_PER_MINUTE = 2
    rule(admin_client, webhook(admin_client, receiver)["id"])
    for n in range(3):
        end_run(SqlJob.objects.create(team=team, name=f"job-{n}", sql="SELECT 1"), succeeded=False, message=f"fail {n}")
    report = deliveries_send()
    assert len(report.sent) == 2 and report.limited
    assert [r.json["text"] for r in receiver.received] == ["fail 0", "fail 1"]
    deliveries_send()
    assert len(receiver.received) == 2  # still within the minute
    deliveries_send(now=timezone.now() + timedelta(seconds=61))
    assert [r.json["text"] for r in receiver.received] == ["fail 0", "fail 1", "fail 2"]


def test_skipped_missed_and_unsubmittable_ticks_alert_once_each(admin_client: APIClient, team: Team, job: SqlJob,
                                                                receiver: Receiver) -> None:
    rule(admin_client, webhook(admin_client, receiver)["id"], event="schedule_tick_skipped")
    hourly = Schedule.objects.create(team=team, job=job, name="hourly", cron="0 * * * *")
    base = timezone.now().replace(minute=0, second=0, microsecond=0)
    # the beat was down for three hours: catch-up `skip` drops the two older ticks and fires the latest
    Schedule.objects.filter(id=hourly.id).update(next_fire_at=base - timedelta(hours=2))
    schedules_tick(now=base + timedelta(seconds=5))
    deliveries_send()
    assert len(receiver.received) == 1
    missed = receiver.received[0].json
    assert missed["event"] == "schedule_tick_skipped" and "was missed" in missed["title"]
    assert "2 tick(s) missed" in missed["text"]
    # the previous run still going (concurrency skip): the next tick is skipped
    schedules_tick(now=base + timedelta(hours=1, seconds=5))
    deliveries_send()
    assert len(receiver.received) == 2 and "was skipped" in receiver.received[1].json["title"]
    schedules_tick(now=base + timedelta(hours=1, seconds=30))  # the same tick again: nothing new
    deliveries_send()
    assert len(receiver.received) == 2
    # the job's script no longer takes the schedule's parameters: the tick cannot be submitted
    JobRun.objects.filter(job=job).update(status=RunStatus.CANCELLED)
    Schedule.objects.filter(id=hourly.id).update(parameters={"no_such_parameter": "1"})
    schedules_tick(now=base + timedelta(hours=2, seconds=5))
    deliveries_send()
    assert len(receiver.received) == 3 and "could not be submitted" in receiver.received[2].json["title"]


def test_a_stream_falling_behind_for_the_rules_minutes_alerts_once_then_resolves(
        admin_client: APIClient, team: Team, receiver: Receiver, settings: Any) -> None:
    settings.LAKEPORT_STREAM_FALLING_BEHIND_BATCHES = 3
    job = SqlJob.objects.create(team=team, name="clicks", sql="INSERT INTO x SELECT * FROM y", kind="streaming")
    resp = admin_client.post("/api/v1/teams/acme/alert-rules/", {
        "name": "behind", "event": "stream_falling_behind", "minutes": 10, "job": job.id,
        "channels": [webhook(admin_client, receiver)["id"]]}, format="json")
    assert resp.status_code == 201, resp.content
    StreamState.objects.create(job=job, status=StreamStatus.RUNNING, desired=Desired.RUNNING)
    start = timezone.now() - timedelta(minutes=11)
    for n, lag in enumerate((50, 40, 60, 70, 80)):  # grows after the 2nd batch (9 minutes ago) at every batch
        StreamMetric.objects.create(job=job, batch_id=n, lag=lag, ts=start + timedelta(minutes=2 * n))
    assert admin_client.get(f"/api/v1/teams/acme/jobs/{job.id}/stream/").json()["falling_behind"] is True
    assert alerts_watch() == 0  # falling behind, but for 9 minutes only
    assert alerts_watch(now=timezone.now() + timedelta(minutes=3)) == 1
    assert alerts_watch(now=timezone.now() + timedelta(minutes=4)) == 0  # the same incident
    deliveries_send()
    assert len(receiver.received) == 1 and "falling behind its source" in receiver.received[0].json["title"]
    StreamMetric.objects.create(job=job, batch_id=9, lag=5, ts=timezone.now())  # it caught up
    alerts_watch()
    deliveries_send()
    assert [r.json["kind"] for r in receiver.received] == ["firing", "resolved"]


def test_an_operator_list_of_receiver_hosts_is_checked_on_save_and_again_before_each_send(
    admin_client: APIClient, receiver: Receiver, settings: Any
) -> None:
    channel = webhook(admin_client, receiver)  # no list: any host but the platform's own services
    settings.LAKEPORT_ALERT_ALLOWED_HOSTS = ["hooks.example.com", "10.0.0.0/8"]
    refused = admin_client.post("/api/v1/teams/acme/alert-channels/", {
        "name": "elsewhere", "kind": "webhook", "url": receiver.url, "secret": WEBHOOK_SECRET}, format="json")
    assert refused.status_code == 400
    assert "LAKEPORT_ALERT_ALLOWED_HOSTS" in refused.json()["error"]["details"]["url"][0]
    # the channel saved before the list: refused at send time, nothing reaches the receiver
    sent = admin_client.post(f"/api/v1/teams/acme/alert-channels/{channel['id']}/test/").json()
    assert sent["ok"] is False and "Not sent" in sent["error"] and "LAKEPORT_ALERT_ALLOWED_HOSTS" in sent["error"]
    assert receiver.received == []
    settings.LAKEPORT_ALERT_ALLOWED_HOSTS = ["127.0.0.1/32"]
    assert admin_client.post(f"/api/v1/teams/acme/alert-channels/{channel['id']}/test/").json()["ok"] is True
    assert len(receiver.received) == 1


def test_a_receiver_cannot_redirect_an_alert_elsewhere(admin_client: APIClient) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    reached: list[str] = []

    class Victim(BaseHTTPRequestHandler):  # an internal service no channel names: any request to it is a leak
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            reached.append(f"GET {self.path}")
            self.send_response(204)
            self.end_headers()

        do_POST = do_GET  # noqa: N815

        def log_message(self, *args: Any) -> None:
            pass

    victim = ThreadingHTTPServer(("127.0.0.1", 0), Victim)

    class Bounce(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            self.send_response(302)  # urllib would follow it, as a GET
            self.send_header("Location", f"http://127.0.0.1:{victim.server_port}/admin/flush")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    bouncer = ThreadingHTTPServer(("127.0.0.1", 0), Bounce)
    for server in (victim, bouncer):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        channel = admin_client.post("/api/v1/teams/acme/alert-channels/", {
            "name": "bouncer", "kind": "webhook", "url": f"http://127.0.0.1:{bouncer.server_port}/hook",
            "secret": WEBHOOK_SECRET}, format="json").json()
        sent = admin_client.post(f"/api/v1/teams/acme/alert-channels/{channel['id']}/test/").json()
    finally:
        bouncer.shutdown()
        victim.shutdown()
    assert sent["ok"] is False and "HTTP 302 (redirects are not followed)" in sent["error"]
    assert reached == []


def test_a_rebinding_name_cannot_send_an_alert_past_the_check(admin_client: APIClient, receiver: Receiver,
                                                              settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """DNS rebinding: the attacker's name answers the send's check with an allowed address and the connection with
    an internal one. The send must connect to the address it checked, so the internal service sees nothing."""
    import socket
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    reached: list[str] = []

    class Victim(BaseHTTPRequestHandler):  # an internal service on another loopback address, same port
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            reached.append(self.path)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    victim = ThreadingHTTPServer(("127.0.0.2", receiver.port), Victim)
    threading.Thread(target=victim.serve_forever, daemon=True).start()
    real_getaddrinfo = socket.getaddrinfo
    answers = {"next": ["127.0.0.1"], "then": "127.0.0.1"}  # honest until armed

    def attacker_dns(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "hooks.rebind.test":
            return real_getaddrinfo(host, port, *args, **kwargs)
        address = answers["next"].pop(0) if answers["next"] else answers["then"]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port or 0))]

    monkeypatch.setattr(socket, "getaddrinfo", attacker_dns)
    settings.LAKEPORT_ALERT_ALLOWED_HOSTS = ["127.0.0.1/32"]  # the internal 127.0.0.2 is not on the list
    try:
        channel = admin_client.post("/api/v1/teams/acme/alert-channels/", {
            "name": "rebinder", "kind": "webhook", "url": f"http://hooks.rebind.test:{receiver.port}/hook",
            "secret": WEBHOOK_SECRET}, format="json")
        assert channel.status_code == 201, channel.content
        answers.update({"next": ["127.0.0.1"], "then": "127.0.0.2"})  # armed: one allowed answer, then internal
        sent = admin_client.post(f"/api/v1/teams/acme/alert-channels/{channel.json()['id']}/test/").json()
    finally:
        victim.shutdown()
        victim.server_close()
    assert reached == []
    assert sent["ok"] is True, sent  # it went where the check looked: the listed receiver
    assert len(receiver.received) == 1 and receiver.received[0].headers["Host"] == f"hooks.rebind.test:{receiver.port}"


def test_an_https_receiver_is_reached_at_its_checked_address_under_its_own_name(
    admin_client: APIClient, settings: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    """The pinned connection still speaks TLS to the name: SNI and the certificate check use the host name (a
    certificate for `hooks.tls.test` only, no IP in it), while the socket goes to the address the check judged."""
    import datetime
    import socket
    import ssl
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    def name(text: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca = (x509.CertificateBuilder().subject_name(name("test CA")).issuer_name(name("test CA"))
          .public_key(ca_key.public_key()).serial_number(1).not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(hours=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True).sign(ca_key, hashes.SHA256()))
    cert = (x509.CertificateBuilder().subject_name(name("hooks.tls.test")).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(2).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("hooks.tls.test")]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    (tmp_path / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "server.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))  # the receiver's CA is the only one trusted

    seen: list[tuple[str, str]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append((self.headers["Host"], self.path))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "server.pem")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    real_getaddrinfo = socket.getaddrinfo

    def dns(host: Any, service: Any, *args: Any, **kwargs: Any) -> Any:
        if host in ("hooks.tls.test", "hooks.elsewhere.test"):
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", service or 0))]
        return real_getaddrinfo(host, service, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", dns)
    try:
        answers = {}
        for host in ("hooks.tls.test", "hooks.elsewhere.test"):  # the second name is not on the certificate
            channel = admin_client.post("/api/v1/teams/acme/alert-channels/", {
                "name": host.split(".")[1], "kind": "webhook", "url": f"https://{host}:{port}/tls?x=1",
                "secret": WEBHOOK_SECRET}, format="json").json()
            answers[host] = admin_client.post(f"/api/v1/teams/acme/alert-channels/{channel['id']}/test/").json()
    finally:
        server.shutdown()
        server.server_close()
    assert answers["hooks.tls.test"]["ok"] is True, answers
    assert seen == [(f"hooks.tls.test:{port}", "/tls?x=1")]
    refused = answers["hooks.elsewhere.test"]
    assert refused["ok"] is False and "Could not reach the receiver" in refused["error"]
    assert "CERTIFICATE_VERIFY_FAILED" in refused["error"] or "certificate" in refused["error"].lower()
