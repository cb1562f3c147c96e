"""Errors of the embedded Delta connector: one type a job run can show to its user as is."""

from __future__ import annotations

import re

from lakeport_kernel.redaction import redact

# delta-rs colours its nested error chains for terminals; job logs want plain text.
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class DeltaConnectorError(Exception):
    """A statement on a Delta catalog could not run; the message names the catalog, table or feature.

    Messages pass through `redact()` so a storage credential that leaks into a wrapped error never reaches
    a job log.
    """

    def __init__(self, message: str) -> None:
        super().__init__(redact(_ANSI.sub("", message)))

    @property
    def message(self) -> str:
        return str(self)


class DeltaConflictError(DeltaConnectorError):
    """A concurrent commit changed the files this write read or replaces; nothing of this write was committed."""


class UnsupportedFeatureError(DeltaConnectorError):
    """The table uses a Delta feature that plain parquet reading or writing cannot honour."""

    def __init__(self, message: str, *, feature: str) -> None:
        super().__init__(message)
        self.feature = feature
