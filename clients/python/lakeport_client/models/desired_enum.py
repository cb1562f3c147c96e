from enum import StrEnum


class DesiredEnum(StrEnum):
    RUNNING = "running"
    STOPPED = "stopped"

    def __str__(self) -> str:
        return str(self.value)
