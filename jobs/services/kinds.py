"""The job-kind policy: the rules a kind of job adds to the checks every job passes, in one registry that
`job_create`, `job_update` and `job_delete` call (jobs/services/jobs.py).

The app that runs a kind registers its rules when Django starts (streams/apps.py registers the streaming kind's:
the one check of a streaming script, a running stream keeps its job's kind and job, an edited script restarts its
driver). A kind nobody registered has no rules beyond the common ones (a batch job)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jobs.models import SqlJob

# The fields a job edit can change that a kind's rules may look at, as they were before the edit.
EDITED_FIELDS = ("kind", "sql", "spark_conf", "default_catalog", "parameters")


@dataclass(frozen=True)
class JobEdit:
    """A job edit about to be saved: `job` with its new fields, `before` its fields as stored (EDITED_FIELDS)."""

    job: SqlJob
    before: Mapping[str, Any]

    def changed(self, *fields: str) -> bool:
        """Whether any of `fields` differs from what is stored."""
        return any(self.before[name] != getattr(self.job, name) for name in fields)


class KindRules:
    """What a kind of job checks beyond the common rules; each hook raises a DomainError to refuse.

    The base class checks nothing: a kind overrides the hooks it needs."""

    def check_script(self, *, sql: str, parameters: Mapping[str, Any]) -> None:
        """Refuse (InvalidInput on `sql`) a script this kind cannot run; called on create and on every edit."""

    def check_edit(self, edit: JobEdit) -> None:
        """Refuse an edit of a job of this kind (the kind it had before the edit), or act on it once it commits."""

    def check_delete(self, job: SqlJob) -> None:
        """Refuse deleting a job of this kind (Conflict)."""


_RULES: dict[str, KindRules] = {}
_NONE = KindRules()


def register_kind_rules(kind: str, rules: KindRules) -> None:
    """Make `rules` the policy of job `kind` (once per kind: a second registration is a programming error)."""
    if kind in _RULES and _RULES[kind] is not rules:
        raise RuntimeError(f"Job kind '{kind}' already has rules ({type(_RULES[kind]).__name__}).")
    _RULES[kind] = rules


def kind_rules(kind: str) -> KindRules:
    """The policy of job `kind` (no rules beyond the common ones when none is registered)."""
    return _RULES.get(kind, _NONE)
