"""Reading the materialized view statements of an embedded Delta catalog (sqlglot has no grammar for them).

    CREATE MATERIALIZED VIEW [IF NOT EXISTS] cat.db.mv [PARTITIONED BY (c, …)] [TBLPROPERTIES ('k' = 'v', …)]
        [COMMENT '…'] [SCHEDULE CRON '…' [AT TIME ZONE '…'] | REFRESH ON COMMIT] AS SELECT …
    REFRESH MATERIALIZED VIEW mv [FULL]
    ALTER MATERIALIZED VIEW mv { SCHEDULE CRON '…' [AT TIME ZONE '…'] | REFRESH ON COMMIT | REFRESH MANUAL }
    DROP MATERIALIZED VIEW [IF EXISTS] mv
    SHOW MATERIALIZED VIEWS [IN|FROM cat[.db]]
    DESC[RIBE] MATERIALIZED VIEW mv
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lakeport_engine.delta.catalog import TableRef
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.delta.statements import Plan, Reference, StatementReader, _Cursor
from lakeport_engine.matviews import view_statement_text
from lakeport_engine.sqltext import PUNCT, QUOTED, STRING, WORD, SqlTextError, significant, tokenize

VIEW_KINDS = ("create_mv", "refresh_mv", "alter_mv", "drop_mv", "show_mvs", "describe_mv")
_TIME_TRAVEL = re.compile(r"\b(VERSION|TIMESTAMP)\s+AS\s+OF\b", re.IGNORECASE)
_NONDETERMINISTIC = re.compile(r"\b(rand|randn|random|uuid|shuffle|current_timestamp|current_date|now|"
                               r"localtimestamp|unix_timestamp|monotonically_increasing_id)\s*\(", re.IGNORECASE)


@dataclass
class ViewPlan(Plan):
    """A materialized view statement; `target` is the view (None for SHOW)."""

    query: str | None = None  # CREATE: the query with every Delta table name fully qualified
    query_references: list[Reference] = field(default_factory=list)
    refresh_mode: str = "manual"
    schedule_cron: str | None = None
    schedule_timezone: str | None = None
    full: bool = False  # REFRESH … FULL


def read_view_statement(reader: StatementReader, sql: str) -> ViewPlan | None:
    """The plan of a materialized view statement, or None when `sql` is none (other statements go on as before)."""
    text = sql.strip().rstrip(";").strip()
    cursor = _Cursor.of(text)
    if cursor is None:
        return None
    verb = cursor.word("create", "refresh", "alter", "drop", "show", "desc", "describe")
    if verb is None:
        return None
    if verb == "show":
        if not (cursor.word("materialized") and cursor.word("views")):
            return None
        name = cursor.name() if cursor.word("in", "from") else None
        if not cursor.done():
            raise DeltaConnectorError("SHOW MATERIALIZED VIEWS takes at most IN catalog[.database].")
        catalog, database = _show_scope(reader, name)
        return ViewPlan("show_mvs", text, catalog=catalog, database=database)
    if not (cursor.word("materialized") and cursor.word("view")):
        return None
    if verb == "create":
        return _create(reader, text, cursor)
    if_exists = verb == "drop" and bool(cursor.word("if") and _expect(cursor, "exists", text))
    ref = _view_ref(reader, cursor, text)
    if verb == "refresh":
        full = bool(cursor.word("full"))
        _end(cursor, text)
        return ViewPlan("refresh_mv", text, target=ref, full=full)
    if verb == "drop":
        _end(cursor, text)
        return ViewPlan("drop_mv", text, target=ref, if_exists=if_exists)
    if verb in ("desc", "describe"):
        _end(cursor, text)
        return ViewPlan("describe_mv", text, target=ref)
    plan = ViewPlan("alter_mv", text, target=ref)
    if not _refresh_clause(cursor, plan, text, allow_manual=True):
        raise DeltaConnectorError(f"ALTER MATERIALIZED VIEW {ref}: say SCHEDULE CRON '…' [AT TIME ZONE '…'], "
                                  "REFRESH ON COMMIT or REFRESH MANUAL.")
    _end(cursor, text)
    return plan


def _create(reader: StatementReader, text: str, cursor: _Cursor) -> ViewPlan:
    if_exists = bool(cursor.word("if") and _expect(cursor, "not", text) and _expect(cursor, "exists", text))
    ref = _view_ref(reader, cursor, text)
    plan = ViewPlan("create_mv", text, target=ref, if_exists=if_exists)
    while not cursor.done():
        if cursor.word("as"):
            break
        if cursor.word("partitioned"):
            _expect(cursor, "by", text)
            plan.partition_by = [n for n, _ in _parenthesised(cursor, text, pairs=False)]
        elif cursor.word("tblproperties"):
            plan.properties = dict(_parenthesised(cursor, text, pairs=True))
        elif cursor.word("comment"):
            plan.comment = _string(cursor, f"COMMENT of {ref}")
        elif not _refresh_clause(cursor, plan, text, allow_manual=False):
            tok = cursor.tokens[cursor.position]
            raise DeltaConnectorError(f"CREATE MATERIALIZED VIEW {ref}: unexpected '{tok.text}' (clauses: "
                                      "PARTITIONED BY, TBLPROPERTIES, COMMENT, SCHEDULE CRON, REFRESH ON COMMIT, "
                                      "then AS SELECT …).")
    else:
        raise DeltaConnectorError(f"CREATE MATERIALIZED VIEW {ref} needs AS SELECT ….")
    if cursor.done():
        raise DeltaConnectorError(f"CREATE MATERIALIZED VIEW {ref} needs a query after AS.")
    start = cursor.tokens[cursor.position].start
    guarded = view_statement_text(text)
    if guarded is None or guarded.query_offset != start:
        raise DeltaConnectorError(f"CREATE MATERIALIZED VIEW {ref}: the query after AS could not be told apart "
                                  "from the clauses before it; quote names that are keywords.")
    query = text[start:]
    plan.query, plan.query_references = qualify_query(reader, query, ref)
    return plan


def qualify_query(reader: StatementReader, query: str, ref: TableRef) -> tuple[str, list[Reference]]:
    """The view's query with its Delta tables named `cat`.`db`.`t` (it is refreshed later, from anywhere), and
    its references in that text. Refuses a query that is no query, reads no Delta table, reads something that is
    not a Delta table of the team, travels in time or is not deterministic."""
    what = f"the query of materialized view {ref}"
    if _TIME_TRAVEL.search(query):
        raise DeltaConnectorError(f"{what} cannot use VERSION/TIMESTAMP AS OF: a view reflects its sources' "
                                  "latest versions as of each refresh.")
    if (found := _NONDETERMINISTIC.search(query)) is not None:
        raise DeltaConnectorError(f"{what} calls {found.group(1)}(), which is not deterministic: a refresh could "
                                  "not be checked against a recompute.")
    plan = reader.read(query)
    if plan is None or plan.kind != "query" or not plan.references:
        raise DeltaConnectorError(f"{what} must be a SELECT over Delta tables of this team's embedded Delta "
                                  "catalogs.")
    _only_delta_tables(reader, query, ref)
    if any(r.ref == ref for r in plan.references):
        raise DeltaConnectorError(f"{what} reads the view itself.")
    out = query
    for reference in sorted(plan.references, key=lambda r: r.start, reverse=True):
        name = f"`{reference.ref.catalog}`.`{reference.ref.database}`.`{reference.ref.table}`"
        if reference.alias:
            name += f" AS `{reference.alias}`"
        out = out[:reference.start] + name + out[reference.end:]
    qualified = reader.read(out)
    assert qualified is not None
    return out, qualified.references


def _only_delta_tables(reader: StatementReader, query: str, ref: TableRef) -> None:
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(query, dialect="spark")
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    for table in tree.find_all(exp.Table):
        parts = [p.name for p in table.parts]
        if len(parts) == 1 and parts[0].lower() in ctes:
            continue
        if not parts or reader.table(parts) is None:
            raise DeltaConnectorError(f"the query of materialized view {ref} reads '{'.'.join(parts)}', which is "
                                      "not a Delta table of this team's embedded Delta catalogs.")


def _refresh_clause(cursor: _Cursor, plan: ViewPlan, text: str, *, allow_manual: bool) -> bool:
    """Consume `SCHEDULE CRON '…' [AT TIME ZONE '…']`, `REFRESH ON COMMIT` (or `REFRESH MANUAL`); False if none."""
    start = cursor.position
    if cursor.word("schedule"):
        _expect(cursor, "cron", text)
        plan.schedule_cron = check_cron(_string(cursor, "SCHEDULE CRON"))
        plan.schedule_timezone = "UTC"
        if cursor.word("at"):
            _expect(cursor, "time", text)
            _expect(cursor, "zone", text)
            plan.schedule_timezone = check_zone(_string(cursor, "AT TIME ZONE"))
        plan.refresh_mode = "schedule"
        return True
    if cursor.word("refresh"):
        if cursor.word("on"):
            _expect(cursor, "commit", text)
            plan.refresh_mode = "on_commit"
            return True
        if allow_manual and cursor.word("manual"):
            plan.refresh_mode = "manual"
            return True
    cursor.position = start
    return False


def check_cron(expression: str) -> str:
    """A 5-field cron expression (or @daily-style alias) croniter accepts, else a clear error."""
    from croniter import croniter

    fields = expression.split()
    if not expression.startswith("@") and len(fields) != 5:
        raise DeltaConnectorError(f"SCHEDULE CRON '{expression}' has {len(fields)} field(s); use 5: minute hour "
                                  "day-of-month month day-of-week (e.g. '*/5 * * * *').")
    try:
        croniter(expression)
    except Exception as exc:  # croniter raises several error types, and ValueError/KeyError on odd input
        raise DeltaConnectorError(f"SCHEDULE CRON '{expression}' is not a valid cron expression: {exc}.") from None
    return expression


def check_zone(name: str) -> str:
    """An IANA time zone name, else a clear error."""
    from zoneinfo import available_timezones

    if name not in available_timezones():
        raise DeltaConnectorError(f"AT TIME ZONE '{name}' is not an IANA time zone (e.g. Europe/Berlin, UTC).")
    return name


def _view_ref(reader: StatementReader, cursor: _Cursor, text: str) -> TableRef:
    name = cursor.name()
    if not name:
        raise DeltaConnectorError(f"'{text[:60]}': a materialized view name is expected.")
    ref = reader.table(name)
    if ref is None:
        raise DeltaConnectorError(f"materialized view '{'.'.join(name)}': materialized views live in embedded "
                                  "Delta catalogs; name one of this team's Delta catalogs (cat.db.view).")
    return ref


def _show_scope(reader: StatementReader, name: list[str] | None) -> tuple[str, str | None]:
    if name and len(name) == 1 and name[0].lower() in reader.catalogs:
        return name[0].lower(), None
    if name:
        ns = reader.namespace(name)
        if ns is None:
            raise DeltaConnectorError(f"SHOW MATERIALIZED VIEWS IN {'.'.join(name)}: not an embedded Delta "
                                      "catalog of this team.")
        return ns
    if not reader.in_delta_catalog:
        raise DeltaConnectorError("SHOW MATERIALIZED VIEWS: say IN <catalog> (the current catalog is not an "
                                  "embedded Delta catalog).")
    return reader.current_catalog or "", None


def _expect(cursor: _Cursor, word: str, text: str) -> bool:
    if not cursor.word(word):
        raise DeltaConnectorError(f"'{text[:80]}': expected {word.upper()} here.")
    return True


def _end(cursor: _Cursor, text: str) -> None:
    if not cursor.done():
        raise DeltaConnectorError(f"'{text[:80]}': unexpected '{cursor.tokens[cursor.position].text}'.")


def _string(cursor: _Cursor, what: str) -> str:
    tok = cursor.tokens[cursor.position] if not cursor.done() else None
    if tok is None or tok.kind != STRING:
        raise DeltaConnectorError(f"{what} needs a quoted string.")
    cursor.position += 1
    return _unquote(tok.text)


def _unquote(literal: str) -> str:
    quote = literal[0]
    return literal[1:-1].replace("\\" + quote, quote).replace(quote * 2, quote)


def _parenthesised(cursor: _Cursor, text: str, *, pairs: bool) -> list[tuple[str, str]]:
    """`(a, b)` → [(a, ""), …] or `('k' = 'v', …)` → [(k, v), …]."""
    def punct(value: str) -> bool:
        tok = cursor.tokens[cursor.position] if not cursor.done() else None
        if tok is not None and tok.kind == PUNCT and tok.text == value:
            cursor.position += 1
            return True
        return False

    if not punct("("):
        raise DeltaConnectorError(f"'{text[:80]}': expected '(' here.")
    items: list[tuple[str, str]] = []
    while True:
        tok = cursor.tokens[cursor.position] if not cursor.done() else None
        if tok is None:
            raise DeltaConnectorError(f"'{text[:80]}': unclosed '('.")
        cursor.position += 1
        key = _unquote(tok.text) if tok.kind == STRING else tok.name if tok.kind in (WORD, QUOTED) else None
        if key is None:
            raise DeltaConnectorError(f"'{text[:80]}': unexpected '{tok.text}' in parentheses.")
        value = ""
        if pairs:
            if not punct("="):
                raise DeltaConnectorError(f"TBLPROPERTIES: expected '=' after '{key}'.")
            value = _string(cursor, f"TBLPROPERTIES '{key}'")
        items.append((key, value))
        if punct(")"):
            return items
        if not punct(","):
            raise DeltaConnectorError(f"'{text[:80]}': expected ',' or ')' in parentheses.")


def mentions_materialized_view(sql: str) -> bool:
    """True if `sql` starts like a materialized view statement (cheap, before any catalog is bound)."""
    try:
        tokens = significant(tokenize(sql))
    except SqlTextError:
        return False
    words = [t.lower for t in tokens[:3]]
    return "materialized" in words[1:3]
