from enum import StrEnum


class CatchupEnum(StrEnum):
    LATEST = "latest"
    SKIP = "skip"

    def __str__(self) -> str:
        return str(self.value)
