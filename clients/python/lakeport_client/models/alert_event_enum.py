from enum import StrEnum


class AlertEventEnum(StrEnum):
    RUN_FAILED = "run_failed"
    RUN_LONG = "run_long"
    SCHEDULE_RUN_FAILED = "schedule_run_failed"
    SCHEDULE_TICK_SKIPPED = "schedule_tick_skipped"
    STREAM_FAILED = "stream_failed"
    STREAM_FALLING_BEHIND = "stream_falling_behind"
    STREAM_RESTARTING = "stream_restarting"

    def __str__(self) -> str:
        return str(self.value)
