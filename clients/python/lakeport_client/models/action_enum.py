from enum import StrEnum


class ActionEnum(StrEnum):
    COLUMN_MASK = "column_mask"
    CREATE = "create"
    DELETE = "delete"
    GRANT = "grant"
    REFUSE = "refuse"
    REVOKE = "revoke"
    ROTATE = "rotate"
    ROW_FILTER = "row_filter"
    UPDATE = "update"

    def __str__(self) -> str:
        return str(self.value)
