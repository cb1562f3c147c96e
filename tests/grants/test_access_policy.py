"""`lakeport_engine/access.py` against a brute-force oracle: every (grants, privilege, target) over a small universe
of names gives the answer the written rules of docs/access.md give, and the protocol refuses a bad document."""

from __future__ import annotations

import itertools
import random

import pytest

from lakeport_engine.access import AccessPolicy, covers, securable_parts
from lakeport_engine.protocol import PRIVILEGES, ProtocolError, decode

CATALOGS, SCHEMAS, TABLES = ("lake", "open"), ("sales", "hr"), ("orders", "salaries")
TARGETS = [(c,) for c in CATALOGS] + [(c, s) for c in CATALOGS for s in SCHEMAS] + [
    (c, s, t) for c in CATALOGS for s in SCHEMAS for t in TABLES]
SECURABLES = [*[".".join(t) for t in TARGETS], *[f"{c}.*" for c in CATALOGS],
              *[f"{c}.{s}.*" for c in CATALOGS for s in SCHEMAS]]


def _holds_on(securable: str, target: tuple[str, ...]) -> bool:
    """Oracle: the securable's name matches the target's first parts, `*` matching one name, and is not longer."""
    parts = securable.split(".")
    return len(parts) <= len(target) and all(p in ("*", t) for p, t in zip(parts, target, strict=False))


def _oracle(grants: list[tuple[str, str]], governed: set[str], admin: bool, privilege: str,
            target: tuple[str, ...]) -> bool:
    if admin or target[0] not in governed:
        return True
    for securable, held in grants:
        if _holds_on(securable, target) and (held in (privilege, "MANAGE") or privilege == "BROWSE"):
            return True
        if privilege == "BROWSE":  # anything below the target shows the target exists
            below = [t for t in TARGETS if len(t) > len(target) and t[:len(target)] == target]
            if any(_holds_on(securable, t) and securable.count(".") >= len(target) for t in below):
                return True
    return False


@pytest.mark.parametrize("seed", range(40))
def test_policy_matches_the_oracle(seed: int) -> None:
    rng = random.Random(seed)
    grants = [(rng.choice(SECURABLES), rng.choice(PRIVILEGES)) for _ in range(rng.randint(0, 5))]
    governed = {s.split(".")[0] for s, _ in grants} | ({"open"} if rng.random() < 0.2 else set())
    admin = rng.random() < 0.1
    policy = AccessPolicy.from_document({"user": "u", "admin": admin, "governed": sorted(governed), "grants": [
        {"securable": s, "privilege": p} for s, p in grants]})  # type: ignore[typeddict-item]
    assert policy is not None
    for privilege, target in itertools.product(PRIVILEGES, TARGETS):
        assert policy.allows(privilege, target) == _oracle(grants, governed, admin, privilege, target), (
            grants, governed, admin, privilege, target)


def test_no_document_means_role_defaults_and_ungoverned_catalogs_are_open() -> None:
    assert AccessPolicy.from_document(None) is None
    policy = AccessPolicy.from_document({"user": "u", "admin": False, "governed": ["lake"], "grants": []})
    assert policy is not None and not policy.unrestricted
    assert policy.allows("MODIFY", ("open", "pub", "t")) and not policy.allows("BROWSE", ("lake",))


@pytest.mark.parametrize("text", ["", "a..b", "a.b.c.d", "*", "*.b", "a.*.c", " . "])
def test_bad_securables_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a securable"):
        securable_parts(text)


def test_star_is_below_its_level_only() -> None:
    assert covers(("lake", "*"), ("lake", "sales")) and not covers(("lake", "*"), ("lake",))
    assert covers(("lake", "sales", "*"), ("lake", "sales", "t")) and not covers(("lake", "sales", "*"), ("lake", "sales"))


def test_the_protocol_checks_the_access_document() -> None:
    request = {"op": "run", "id": "r", "request": {"mode": "preview", "script": "SELECT 1", "access": {
        "user": "u", "admin": False, "governed": ["lake"], "grants": [{"securable": "lake", "privilege": "READ"}]}}}
    with pytest.raises(ProtocolError, match="unknown privilege 'READ'"):
        decode(request)
    request["request"]["access"]["grants"] = [{"securable": "lake"}]  # type: ignore[index]
    with pytest.raises(ProtocolError, match="'privilege' is missing"):
        decode(request)
    del request["request"]["access"]
    assert decode(request)["request"]["access"] is None  # type: ignore[typeddict-item]
