"""Incidents: opened and resolved inside the transaction of the state change that causes them, with one outbox row
(AlertDelivery) per channel of the rule.

One incident per thing gone wrong: a job's failing runs are one incident until a run of the job succeeds, a stream's
failure one until it runs again, a schedule's failed tick one per tick (cleared by the schedule's next successful
run). The open incident's unique key is the deduplication; the outbox rows are sent by `alerts.deliver` after the
commit (services/delivery.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from alerts.messages import AlertMessage, message
from alerts.models import AlertDelivery, AlertIncident, AlertRule, DeliveryKind
from core.enqueue import task_send
from core.queues import BEAT_QUEUE

logger = logging.getLogger("lakeport.alerts")

DELIVER_TASK = "alerts.deliver"


@dataclass(frozen=True)
class Happening:
    """Something a rule may alert on: which rule event, where (team, job), the incident key and the message."""

    event: str
    team_id: int
    team: str
    job_id: int
    key: str
    title: str
    error: str | None
    link: str


def rules_for(*, event: str, team_id: int, job_id: int) -> list[AlertRule]:
    """The team's enabled rules on `event` for this job (or for all its jobs)."""
    return list(AlertRule.objects.filter(team_id=team_id, event=event, enabled=True)
                .filter(Q(job_id=job_id) | Q(job__isnull=True)).order_by("id"))


def deliver_soon() -> None:
    """Send the delivery task once the current transaction commits (the periodic sweep retries anyway)."""
    transaction.on_commit(lambda: task_send(DELIVER_TASK, args=[], queue=BEAT_QUEUE, logger=logger,
                                            event="alerts.enqueue_failed", extra={}))


def _outbox(*, rule: AlertRule, incident: AlertIncident | None, kind: str, body: AlertMessage) -> int:
    rows = [AlertDelivery(channel=channel, incident=incident, kind=kind, message=dict(body))
            for channel in rule.channels.filter(enabled=True)]
    AlertDelivery.objects.bulk_create(rows)
    return len(rows)


def incident_open(*, happening: Happening, only: AlertRule | None = None) -> list[AlertIncident]:
    """(In the state change's transaction.) Open an incident per matching rule (or for `only`, a rule whose
    threshold was crossed) that has none open for the key."""
    opened = []
    rules = [only] if only is not None else rules_for(event=happening.event, team_id=happening.team_id,
                                                      job_id=happening.job_id)
    for rule in rules:
        try:
            with transaction.atomic():  # a savepoint: a duplicate (or any failure) never rolls back the change
                if AlertIncident.objects.filter(rule=rule, key=happening.key, resolved_at__isnull=True).exists():
                    continue  # the incident is already open: one alert per incident
                incident = AlertIncident.objects.create(rule=rule, key=happening.key, title=happening.title[:500])
                body = message(kind=DeliveryKind.FIRING, event=happening.event, team=happening.team, rule=rule.name,
                               title=happening.title, error=happening.error, link=happening.link)
                _outbox(rule=rule, incident=incident, kind=DeliveryKind.FIRING, body=body)
                opened.append(incident)
        except IntegrityError:
            continue  # opened concurrently by another process: that one alerts
    if opened:
        logger.info("alerts.incident_opened", extra={"key": happening.key, "incidents": [i.id for i in opened]})
        deliver_soon()
    return opened


def incident_resolve(*, happening: Happening, key_prefix: str | None = None,
                     only: AlertRule | None = None) -> list[AlertIncident]:
    """(In the state change's transaction.) Resolve the open incidents of matching rules (or of `only`) for the key
    (or every key starting with `key_prefix`), each with one "resolved" message per channel."""
    resolved = []
    rules = [only] if only is not None else rules_for(event=happening.event, team_id=happening.team_id,
                                                      job_id=happening.job_id)
    for rule in rules:
        open_ = AlertIncident.objects.filter(rule=rule, resolved_at__isnull=True)
        open_ = open_.filter(key__startswith=key_prefix) if key_prefix else open_.filter(key=happening.key)
        for incident in open_.select_for_update():
            with transaction.atomic():
                if not AlertIncident.objects.filter(id=incident.id, resolved_at__isnull=True).update(
                        resolved_at=timezone.now()):
                    continue
                body = message(kind=DeliveryKind.RESOLVED, event=happening.event, team=happening.team,
                               rule=rule.name, title=f"Resolved: {incident.title} — {happening.title}",
                               error=None, link=happening.link)
                _outbox(rule=rule, incident=incident, kind=DeliveryKind.RESOLVED, body=body)
                resolved.append(incident)
    if resolved:
        logger.info("alerts.incident_resolved", extra={"incidents": [i.id for i in resolved]})
        deliver_soon()
    return resolved
