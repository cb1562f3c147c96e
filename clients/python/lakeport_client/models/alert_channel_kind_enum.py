from enum import StrEnum


class AlertChannelKindEnum(StrEnum):
    EMAIL = "email"
    SLACK = "slack"
    WEBHOOK = "webhook"

    def __str__(self) -> str:
        return str(self.value)
