from enum import StrEnum


class SchemaEnum(StrEnum):
    DECLARED = "declared"
    INFERRED = "inferred"

    def __str__(self) -> str:
        return str(self.value)
