from enum import StrEnum


class OperationEnum(StrEnum):
    OPTIMIZE = "optimize"
    VACUUM = "vacuum"

    def __str__(self) -> str:
        return str(self.value)
