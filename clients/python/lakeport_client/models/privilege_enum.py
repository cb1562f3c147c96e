from enum import StrEnum


class PrivilegeEnum(StrEnum):
    BROWSE = "BROWSE"
    CREATE = "CREATE"
    MANAGE = "MANAGE"
    MODIFY = "MODIFY"
    SELECT = "SELECT"

    def __str__(self) -> str:
        return str(self.value)
