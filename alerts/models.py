"""Alert channels and rules of a team, incidents (one per thing gone wrong) and the outbox of their deliveries."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class ChannelKind(models.TextChoices):
    """Where an alert goes."""

    WEBHOOK = "webhook", "Webhook (JSON body, HMAC-SHA256 signature header)"
    SLACK = "slack", "Slack-compatible incoming webhook"
    EMAIL = "email", "E-mail"


class AlertChannel(models.Model):
    """One destination of a team's alerts. `secret` is sealed at rest (webhook: the HMAC key; Slack: the URL)."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="alert_channels")
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=16, choices=ChannelKind.choices)
    url = models.CharField(max_length=1000, blank=True, default="", help_text="Webhook: where alerts are POSTed.")
    recipients = models.JSONField(default=list, blank=True, help_text="E-mail: the addresses.")
    secret = models.TextField(blank=True, default="", help_text="Sealed (lakeport_kernel.secretbox); never shown.")
    enabled = models.BooleanField(default=True)
    last_error = models.TextField(blank=True, default="", help_text="Why the last failed send failed.")
    last_error_at = models.DateTimeField(null=True, blank=True)
    last_sent_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="uniq_alertchannel_team_name")]
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.team_id}/{self.name} ({self.kind})"


class AlertEvent(models.TextChoices):
    """What a rule watches."""

    RUN_FAILED = "run_failed", "A run FAILED (after its retries)"
    STREAM_FAILED = "stream_failed", "A stream FAILED (its restart budget exhausted, or refused)"
    SCHEDULE_RUN_FAILED = "schedule_run_failed", "A schedule's tick failed (its run FAILED after the schedule's retries)"
    SCHEDULE_TICK_SKIPPED = "schedule_tick_skipped", "A schedule's tick was skipped, missed or could not be submitted"
    RUN_LONG = "run_long", "A run has been RUNNING longer than `minutes`"
    STREAM_RESTARTING = "stream_restarting", "A stream restarted more than `count` times within `minutes`"
    STREAM_FALLING_BEHIND = "stream_falling_behind", "A stream's source lag has kept growing for `minutes`"


THRESHOLDS = {AlertEvent.RUN_LONG: ("minutes",), AlertEvent.STREAM_RESTARTING: ("count", "minutes"),
              AlertEvent.STREAM_FALLING_BEHIND: ("minutes",)}


class AlertRule(models.Model):
    """Send an alert to `channels` when `event` happens to `job` (null: any job of the team)."""

    team = models.ForeignKey("teams.Team", on_delete=models.CASCADE, related_name="alert_rules")
    name = models.CharField(max_length=100)
    event = models.CharField(max_length=32, choices=AlertEvent.choices)
    job = models.ForeignKey("jobs.SqlJob", on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    channels = models.ManyToManyField(AlertChannel, related_name="rules")
    minutes = models.PositiveIntegerField(null=True, blank=True, help_text="run_long, stream_restarting: the window.")
    count = models.PositiveIntegerField(null=True, blank=True, help_text="stream_restarting: restarts allowed.")
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="uniq_alertrule_team_name")]
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.team_id}/{self.name} ({self.event})"

    @property
    def channel_ids(self) -> list[int]:
        """The ids of the rule's channels (from a prefetch when there is one)."""
        return sorted(channel.id for channel in self.channels.all())


class AlertIncident(models.Model):
    """One thing gone wrong, as a rule sees it: open until it clears. UNIQUE(rule, key) among open incidents is the
    deduplication: a second failure of the same job while its incident is open sends nothing."""

    rule = models.ForeignKey(AlertRule, on_delete=models.CASCADE, related_name="incidents")
    key = models.CharField(max_length=200, help_text="job:12, stream:12, schedule:3:tick:2026-11-27T06:00Z")
    title = models.CharField(max_length=500)
    opened_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["rule", "key"], condition=models.Q(resolved_at__isnull=True),
                                               name="uniq_alertincident_open_key")]
        ordering = ["-opened_at", "-id"]

    def __str__(self) -> str:
        return f"incident {self.key} of rule {self.rule_id}"


class StreamRestart(models.Model):
    """A stream's driver restarted after a failure (written with the status change): the window of the
    `stream_restarting` rules."""

    job = models.ForeignKey("jobs.SqlJob", on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        indexes = [models.Index(fields=["job", "at"], name="streamrestart_job_at")]

    def __str__(self) -> str:
        return f"restart of stream {self.job_id} at {self.at:%H:%M:%S}"


class DeliveryKind(models.TextChoices):
    FIRING = "firing", "An incident opened"
    RESOLVED = "resolved", "An incident cleared"
    TEST = "test", "Send test"


class DeliveryStatus(models.TextChoices):
    """`PENDING → SENDING → SENT`, or back to PENDING (a retry after a backoff) until FAILED."""

    PENDING = "pending", "Waiting to be sent"
    SENDING = "sending", "Being sent"
    SENT = "sent", "Sent"
    FAILED = "failed", "Gave up after the last retry"


class AlertDelivery(models.Model):
    """The outbox: one message to one channel, written in the transaction of the state change that causes it and
    sent afterwards by the `alerts.deliver` task."""

    channel = models.ForeignKey(AlertChannel, on_delete=models.CASCADE, related_name="deliveries")
    incident = models.ForeignKey(AlertIncident, on_delete=models.CASCADE, null=True, blank=True,
                                 related_name="deliveries")
    kind = models.CharField(max_length=16, choices=DeliveryKind.choices)
    message = models.JSONField(help_text="title, text, link, event, team … (no secret: built from redacted text)")
    status = models.CharField(max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    claimed_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["incident", "channel", "kind"],
                                               condition=models.Q(incident__isnull=False),
                                               name="uniq_alertdelivery_incident_channel_kind")]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="alertdelivery_due")]
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"delivery {self.pk} ({self.kind}, {self.status}) to channel {self.channel_id}"
