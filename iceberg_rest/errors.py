"""Domain errors of the Iceberg REST catalog, each naming the exception type the Iceberg spec's error model uses.

They are `core/errors.py` classes (so services stay HTTP-free); `iceberg_rest/views.py` alone writes them as the
spec's `{"error": {"message", "type", "code"}}` body.
"""

from __future__ import annotations

from core.errors import Conflict, DomainError, InvalidInput, NotFound


class NoSuchCatalog(NotFound):
    """The URL's team or catalog does not exist, is not the caller's, or is not an `iceberg` catalog."""

    iceberg_type = "NotFoundException"


class NoSuchNamespace(NotFound):
    """The namespace does not exist."""

    iceberg_type = "NoSuchNamespaceException"


class NoSuchTable(NotFound):
    """The table does not exist."""

    iceberg_type = "NoSuchTableException"


class AlreadyExists(Conflict):
    """A namespace or table of that name (or a table's directory) already exists."""

    iceberg_type = "AlreadyExistsException"


class NamespaceNotEmpty(Conflict):
    """A namespace that still holds tables cannot be dropped."""

    iceberg_type = "NamespaceNotEmptyException"


class CommitFailed(Conflict):
    """A commit's requirement no longer holds (a concurrent commit won): nothing was committed; refresh and retry."""

    iceberg_type = "CommitFailedException"


class BadRequest(InvalidInput):
    """A malformed request, or one refused by a rule (the message names it, e.g. iceberg-location)."""

    iceberg_type = "BadRequestException"


class Unsupported(DomainError):
    """An operation of the spec this endpoint does not serve (answered 406, as the spec says)."""

    code = "unsupported"
    iceberg_type = "UnsupportedOperationException"
