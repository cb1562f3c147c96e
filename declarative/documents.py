"""A declarative document as read from a file or a request body: YAML (or JSON, which is YAML) without aliases,
and its sections (`catalogs`, `jobs`, `schedules`, `materialized_views`, `alert_channels`, `alert_rules`, `groups`,
`grants`, `row_filters`, `column_masks`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

PIPELINE_SECTIONS = ("jobs", "schedules", "materialized_views", "alert_channels", "alert_rules", "groups", "grants",
                     "row_filters", "column_masks")


class _NoAliasLoader(yaml.SafeLoader):
    """Safe YAML without anchors/aliases: a small document must not expand into a huge one."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(None, None, "YAML aliases (*name) are not allowed", mark)
        return super().compose_node(parent, index)


class DocumentError(ValueError):
    """A declarative document that is not valid YAML/JSON; the message quotes no part of it."""


def load_document(text: str) -> Any:
    """Parse a declarative document (YAML or JSON, which is YAML). Errors give line and column, never content
    (the document may hold secrets)."""
    try:
        return yaml.load(text, Loader=_NoAliasLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise DocumentError(f"Invalid YAML{where}: {exc.problem or exc.context or 'syntax error'}.") from None
    except yaml.YAMLError:
        raise DocumentError("Invalid YAML.") from None
    except RecursionError:
        raise DocumentError("Invalid YAML: the document is nested too deeply.") from None


def catalog_entries(document: Any) -> Any:
    """The catalog list of a declarative document: the document itself when it is a list, else its `catalogs`;
    None for a document of only jobs/schedules (its catalogs are left alone)."""
    if isinstance(document, Mapping) and "catalogs" in document:
        return document["catalogs"]
    if isinstance(document, Mapping) and any(name in document for name in PIPELINE_SECTIONS):
        return None
    return document


def pipeline_sections(document: Any) -> dict[str, Any]:
    """The `jobs`, `schedules`, `materialized_views` and alert sections a document has (none for a plain list of catalogs)."""
    if not isinstance(document, Mapping):
        return {}
    return {name: document[name] for name in PIPELINE_SECTIONS if name in document}
