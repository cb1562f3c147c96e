from enum import StrEnum


class LivePreviewStatusEnum(StrEnum):
    FAILED = "FAILED"
    RUNNING = "RUNNING"
    STARTING = "STARTING"
    STOPPED = "STOPPED"

    def __str__(self) -> str:
        return str(self.value)
