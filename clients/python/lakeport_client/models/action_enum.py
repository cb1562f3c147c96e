from enum import StrEnum


class ActionEnum(StrEnum):
    CREATE = "create"
    DELETE = "delete"
    GRANT = "grant"
    REFUSE = "refuse"
    REVOKE = "revoke"
    ROTATE = "rotate"
    UPDATE = "update"

    def __str__(self) -> str:
        return str(self.value)
