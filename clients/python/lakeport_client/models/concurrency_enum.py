from enum import StrEnum


class ConcurrencyEnum(StrEnum):
    QUEUE = "queue"
    SKIP = "skip"

    def __str__(self) -> str:
        return str(self.value)
