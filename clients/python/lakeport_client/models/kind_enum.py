from enum import StrEnum


class KindEnum(StrEnum):
    BATCH = "batch"
    STREAMING = "streaming"

    def __str__(self) -> str:
        return str(self.value)
