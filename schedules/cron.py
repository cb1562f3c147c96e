"""Cron expressions in an IANA time zone: validation and fire times (croniter iterates, zoneinfo knows DST).

No Django in the logic; a bad spec is a ScheduleSpecError, the domain's InvalidInput. Fire times are aware
datetimes in UTC. On a fall-back night a wall-clock time happens twice: an expression that names its hours
(`30 2 * * *`) fires once, at the first of the two; one whose hour field is `*` fires every real hour (Vixie
cron's rule). On a spring-forward night a missing wall time fires at the first instant after the gap
(croniter's behaviour, e.g. 02:30 → 03:00 CEST).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from croniter import CroniterBadCronError, CroniterBadDateError, CroniterNotAlphaError, croniter

from core.errors import InvalidInput

MAX_CRON_LENGTH = 200


class ScheduleSpecError(InvalidInput):
    """A cron expression or time zone that cannot be used; `field` is `cron` or `time_zone`."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, {field: [message]})
        self.field = field


def zone(name: str) -> ZoneInfo:
    """The IANA time zone `name` (e.g. Europe/Berlin); an unknown one raises ScheduleSpecError."""
    if not isinstance(name, str) or not name or len(name) > 64 or name not in _zones():
        raise ScheduleSpecError("time_zone", f"Unknown time zone '{str(name)[:64]}'; use an IANA name like Europe/Berlin.")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleSpecError("time_zone", f"Unknown time zone '{name}'.") from None


_ZONES: set[str] = set()


def _zones() -> set[str]:
    if not _ZONES:
        _ZONES.update(available_timezones())
    return _ZONES


def check_cron(expression: str) -> None:
    """Refuse anything croniter does not accept as a 5-field expression (or @daily-style alias)."""
    if not isinstance(expression, str) or not expression.strip() or len(expression) > MAX_CRON_LENGTH:
        raise ScheduleSpecError("cron", "A cron expression like '30 2 * * *' (minute hour day month weekday) is needed.")
    fields = expression.split()
    if not expression.startswith("@") and len(fields) != 5:
        raise ScheduleSpecError("cron", f"Cron expression '{expression}' has {len(fields)} fields; use 5: "
                                        "minute hour day-of-month month day-of-week.")
    try:
        croniter(expression)
    except (CroniterBadCronError, CroniterNotAlphaError, CroniterBadDateError, ValueError, KeyError) as exc:
        raise ScheduleSpecError("cron", f"Invalid cron expression '{expression}': {exc}.") from None


def _names_hours(expression: str) -> bool:
    return bool(croniter(expression).expanded[1] != ["*"])


def fire_times(expression: str, time_zone: str, *, after: datetime) -> Iterator[datetime]:
    """Fire times strictly after `after`, ascending, as aware UTC datetimes (an endless iterator)."""
    check_cron(expression)
    tz = zone(time_zone)
    names_hours = _names_hours(expression)
    iterator = croniter(expression, after.astimezone(tz))
    while True:
        try:
            moment: datetime = iterator.get_next(datetime)
        except CroniterBadDateError:
            raise ScheduleSpecError("cron", f"Cron expression '{expression}' never fires (e.g. 31 February).") from None
        if names_hours and _second_of_repeated_hour(moment, tz):
            continue  # a fall-back night repeats this wall time: a named time fires once, at the first
        yield moment.astimezone(UTC)


def _second_of_repeated_hour(moment: datetime, tz: ZoneInfo) -> bool:
    wall = moment.replace(tzinfo=None)
    first, second = wall.replace(tzinfo=tz, fold=0), wall.replace(tzinfo=tz, fold=1)
    return first.utcoffset() != second.utcoffset() and moment.utcoffset() == second.utcoffset()


def next_fire_times(expression: str, time_zone: str, *, after: datetime, count: int = 5) -> list[datetime]:
    """The next `count` fire times after `after`."""
    times = fire_times(expression, time_zone, after=after)
    return [next(times) for _ in range(count)]


def local_fire_times(expression: str, time_zone: str, *, after: datetime, count: int = 5) -> list[str]:
    """The next `count` fire times after `after` as ISO 8601 strings in `time_zone` (what people read)."""
    tz = zone(time_zone)
    return [t.astimezone(tz).isoformat() for t in next_fire_times(expression, time_zone, after=after, count=count)]


@dataclass(frozen=True)
class CronPreview:
    """An expression as typed in the schedule editor: its next local fire times, or why it cannot be used."""

    cron: str
    time_zone: str
    next_fire_times: list[str]
    error: ScheduleSpecError | None = None

    @property
    def valid(self) -> bool:
        """True when the expression and time zone can be scheduled."""
        return self.error is None


def cron_preview(expression: str, time_zone: str, *, after: datetime, count: int = 5) -> CronPreview:
    """The next `count` fire times of `expression` in `time_zone`; a bad spec is reported, not raised (a
    half-typed expression is the normal case while editing)."""
    try:
        times = local_fire_times(expression, time_zone, after=after, count=count)
    except ScheduleSpecError as exc:
        return CronPreview(cron=expression, time_zone=time_zone, next_fire_times=[], error=exc)
    return CronPreview(cron=expression, time_zone=time_zone, next_fire_times=times)
