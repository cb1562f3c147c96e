from enum import StrEnum


class CheckedEnum(StrEnum):
    FULL = "full"
    SYNTAX = "syntax"

    def __str__(self) -> str:
        return str(self.value)
