from enum import StrEnum


class StreamStateOutputStatusEnum(StrEnum):
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"
    RUNNING = "RUNNING"
    STARTING = "STARTING"
    STOPPED = "STOPPED"
    STOPPING = "STOPPING"

    def __str__(self) -> str:
        return str(self.value)
