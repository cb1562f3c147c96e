"""What every engine returns, and how engines reach the catalog store and the runtime."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from django.conf import settings


@dataclass
class Outcome:
    """The result of one attempt: the runtime's ScriptResult in plain data, plus Spark application facts."""

    succeeded: bool
    error: dict[str, Any] | None
    statements: list[dict[str, Any]] = field(default_factory=list)
    catalogs_used: list[str] = field(default_factory=list)
    result: dict[str, Any] | None = None
    engine: str = ""
    cancelled: bool = False


def last_result(statements: list[Any]) -> dict[str, Any] | None:
    """The preview of the last statement that produced rows: `{"columns", "rows", "truncated"}`."""
    for st in reversed(statements):
        columns = st.get("columns") if isinstance(st, dict) else getattr(st, "columns", None)
        if columns is not None and (st.get("status") if isinstance(st, dict) else st.status) == "succeeded":
            rows = st.get("rows") if isinstance(st, dict) else st.rows
            truncated = st.get("truncated") if isinstance(st, dict) else st.truncated
            return {"columns": columns, "rows": rows or [], "truncated": bool(truncated)}
    return None


def store_dsn(db: dict[str, Any] | None = None) -> tuple[str, dict[str, str]]:
    """The catalog-store DSN of Django's database (`postgresql://user@host:port/db`) and the env carrying the
    password (PGPASSWORD), so the password never appears in a DSN, a command line or a log."""
    db = db if db is not None else settings.DATABASES["default"]
    if "postgresql" not in db["ENGINE"]:
        raise RuntimeError("The Spark catalog store reads the catalog table from PostgreSQL; set DATABASE_URL.")
    user = quote(db.get("USER") or "postgres", safe="")
    dsn = f"postgresql://{user}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{quote(db['NAME'], safe='')}"
    env = {"PGPASSWORD": str(db["PASSWORD"])} if db.get("PASSWORD") else {}
    return dsn, env


def secret_env() -> dict[str, str]:
    """Environment a driver process needs to open sealed catalog secrets."""
    return {"LAKEPORT_SECRET_KEYS": ",".join(settings.LAKEPORT_SECRET_KEYS)}
