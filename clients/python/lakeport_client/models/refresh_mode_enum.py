from enum import StrEnum


class RefreshModeEnum(StrEnum):
    MANUAL = "manual"
    ON_COMMIT = "on_commit"
    SCHEDULE = "schedule"

    def __str__(self) -> str:
        return str(self.value)
