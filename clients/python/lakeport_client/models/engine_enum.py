from enum import StrEnum


class EngineEnum(StrEnum):
    DEFAULT = "default"
    ISOLATED = "isolated"
    WARM = "warm"

    def __str__(self) -> str:
        return str(self.value)
