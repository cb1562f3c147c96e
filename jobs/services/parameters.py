"""Job parameters: `${name}` placeholders in a job's SQL, typed declarations, and their rendering as SQL literals.

No Django in the logic; a problem is a ParameterError, the domain's InvalidInput. A value never reaches the SQL
as raw text: it is parsed into its Python type (int, Decimal, date, datetime, bool, str), then rendered as a
typed Spark SQL literal, and every rendered literal is tokenized again to prove it is exactly one token (a
string can never be closed, a statement never added, a comment never started). A placeholder inside a string
literal is refused: `'${ds}'` would need the value spliced as text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from zoneinfo import ZoneInfo

from core.errors import InvalidInput
from lakeport_engine.sqltext import COMMENT, PUNCT, STRING, WORD, SqlTextError, tokenize

PARAMETER_NAME_RE = r"^[A-Za-z_][A-Za-z0-9_]{0,62}$"
PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]{0,62})\}")
_NAME = re.compile(PARAMETER_NAME_RE)
TYPES = ("string", "int", "decimal", "date", "timestamp", "boolean")
BUILTINS = {"ds": "date", "ts": "timestamp"}  # the logical date of a scheduled fire (or the submit time)
MAX_PARAMETERS = 50
MAX_STRING = 4000
BIGINT = 2**63
ParamValue = str | int | bool | Decimal | date | datetime
RawValue = str | int | float | bool | None


class ParameterError(InvalidInput):
    """A parameter problem a user can fix; `field` names the parameter (or `sql`) and `message` says what.

    As an API error its details nest the field under `parameters`: `{"parameters": {field: [message]}}`.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, {"parameters": {field: [message]}})
        self.field = field


@dataclass(frozen=True)
class ParameterSpec:
    """One declared parameter: a name, a type from TYPES and an optional default (None: a value is required)."""

    name: str
    type: str
    default: ParamValue | None


# ---- values ---------------------------------------------------------------------------------------------
def parse_value(name: str, type_: str, raw: RawValue) -> ParamValue:
    """Parse `raw` (JSON scalar) into the Python value of `type_`; a bad value raises ParameterError naming `name`."""
    def bad(expected: str) -> ParameterError:
        return ParameterError(name, f"Parameter '{name}' needs {expected}.")

    if raw is None:
        raise bad(f"a {type_} value")
    if type_ == "boolean":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
            return raw.strip().lower() == "true"
        raise bad("true or false")
    if isinstance(raw, bool):
        raise bad(f"a {type_} value, not a boolean")
    if type_ == "string":
        if not isinstance(raw, str) or len(raw) > MAX_STRING or "\x00" in raw:
            raise bad(f"a string of at most {MAX_STRING} characters without NUL")
        return raw
    if type_ == "int":
        try:
            value = int(raw) if isinstance(raw, int) else int(str(raw).strip(), 10)
        except ValueError:
            raise bad("an integer") from None
        if not -BIGINT <= value < BIGINT:
            raise bad("an integer in the BIGINT range")
        return value
    if type_ == "decimal":
        try:
            number = Decimal(str(raw).strip())
        except InvalidOperation:
            raise bad("a decimal number like 12.50") from None
        if not number.is_finite() or len(number.as_tuple().digits) > 38:
            raise bad("a finite decimal number of at most 38 digits")
        return number
    if not isinstance(raw, str):
        raise bad(f"an ISO 8601 {type_} string")
    if type_ == "date":
        try:
            return date.fromisoformat(raw.strip())
        except ValueError:
            raise bad("an ISO 8601 date like 2026-01-31") from None
    if type_ == "timestamp":
        try:
            moment = datetime.fromisoformat(raw.strip())
        except ValueError:
            raise bad("an ISO 8601 timestamp like 2026-01-31T08:00:00Z") from None
        return moment.astimezone(UTC) if moment.tzinfo else moment
    raise ParameterError(name, f"Parameter '{name}' has an unknown type; use one of {', '.join(TYPES)}.")


def render_literal(type_: str, value: ParamValue) -> str:
    """The Spark SQL literal of a parsed value; negative numbers in parentheses so `x -${n}` never becomes `--`."""
    if type_ == "boolean":
        return "TRUE" if value else "FALSE"
    if type_ == "int":
        return f"({value})" if int(value) < 0 else str(int(value))  # type: ignore[arg-type]
    if type_ == "decimal":
        assert isinstance(value, Decimal)
        text = format(value, "f")
        return f"({text}BD)" if value < 0 else f"{text}BD"
    if type_ == "date":
        assert isinstance(value, date)
        return f"DATE '{value.isoformat()}'"
    if type_ == "timestamp":
        assert isinstance(value, datetime)
        stamp = value.isoformat(sep=" ")
        return f"TIMESTAMP '{stamp}'"
    # Backslash escapes: Spark's default string parsing (spark.sql.parser.escapedStringLiterals=false, not allow-listed).
    # `$` as \u0024: Spark substitutes ${…} (confs, env) in the SQL text before parsing, quotes or not.
    text = (str(value).replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
            .replace("$", "\\u0024"))
    return f"'{text}'"


def _check_one_token(name: str, literal: str) -> None:
    # The proof that a rendered value stays a value: one literal (or a parenthesised number), nothing after it.
    try:
        tokens = [t for t in tokenize(literal) if t.kind != "space"]
    except SqlTextError:
        raise ParameterError(name, f"Parameter '{name}' cannot be rendered as a SQL literal.") from None
    strings = [i for i, t in enumerate(tokens) if t.kind == STRING]
    allowed = (all(t.kind in (WORD, STRING, PUNCT) for t in tokens) and len(strings) <= 1
               and (not strings or strings[0] == len(tokens) - 1) and not any(t.text == ";" for t in tokens))
    if not allowed:
        raise ParameterError(name, f"Parameter '{name}' cannot be rendered as a SQL literal.")


def display_value(type_: str, value: ParamValue) -> str:
    """A value as shown in a run (ISO dates, plain numbers)."""
    if type_ == "boolean":
        return "true" if value else "false"
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return str(value)


# ---- declarations ---------------------------------------------------------------------------------------
def clean_declarations(declared: object) -> dict[str, dict[str, str | None]]:
    """Validate a job's `parameters` object `{name: {"type", "default"}}`; returns it with defaults as strings."""
    if declared in (None, {}):
        return {}
    if not isinstance(declared, Mapping):
        raise ParameterError("parameters", 'Expected an object like {"day": {"type": "date", "default": "2026-01-31"}}.')
    if len(declared) > MAX_PARAMETERS:
        raise ParameterError("parameters", f"At most {MAX_PARAMETERS} parameters.")
    cleaned: dict[str, dict[str, str | None]] = {}
    for name, spec in declared.items():
        label = str(name)[:64]
        if not isinstance(name, str) or not _NAME.match(name):
            raise ParameterError("parameters", f"Parameter name '{label}' must be letters, digits and _ (not first).")
        if name in BUILTINS:
            raise ParameterError(name, f"Parameter '{name}' is built in (the run's logical date); pick another name.")
        if isinstance(spec, str):
            spec = {"type": spec}
        if not isinstance(spec, Mapping) or spec.get("type") not in TYPES:
            raise ParameterError(name, f"Parameter '{name}' needs a type: one of {', '.join(TYPES)}.")
        default = spec.get("default")
        if default is not None:
            value = parse_value(name, spec["type"], default)
            default = display_value(spec["type"], value)
        cleaned[name] = {"type": spec["type"], "default": default}
    return cleaned


def specs_of(declared: Mapping[str, Mapping[str, str | None]]) -> dict[str, ParameterSpec]:
    """ParameterSpecs of a cleaned declaration object."""
    return {name: ParameterSpec(name=name, type=str(d["type"]),
                                default=None if d.get("default") is None else parse_value(name, str(d["type"]), d["default"]))
            for name, d in declared.items()}


def placeholders(sql: str) -> list[tuple[str, int]]:
    """Names and offsets of the `${name}` placeholders of a script outside comments; one in a string is refused."""
    try:
        tokens = tokenize(sql)
    except SqlTextError:
        return []  # the script's own syntax error is reported by Spark with its line; nothing to substitute
    found: list[tuple[str, int]] = []
    starts = {t.start: t for t in tokens}
    for token in tokens:
        if token.kind == STRING and PLACEHOLDER.search(token.text):
            match = PLACEHOLDER.search(token.text)
            assert match is not None
            line = sql.count("\n", 0, token.start) + 1
            raise ParameterError(match.group(1), (
                f"Parameter '${{{match.group(1)}}}' is inside a string literal on line {line}; write it without "
                "quotes (it becomes a typed literal, e.g. DATE '2026-01-31')."))
    for match in PLACEHOLDER.finditer(sql):
        at = starts.get(match.start())
        if at is not None and at.kind not in (STRING, COMMENT):
            found.append((match.group(1), match.start()))
    return found


def check_script_parameters(sql: str, declared: Mapping[str, Mapping[str, str | None]]) -> None:
    """Every `${name}` of `sql` must be declared or built in; the first unknown one raises ParameterError."""
    for name, _ in placeholders(sql):
        if name not in declared and name not in BUILTINS:
            known = ", ".join(sorted([*declared, *BUILTINS]))
            raise ParameterError(name, f"Unknown parameter '${{{name}}}' in the SQL; declared: {known}.")


# ---- a run's values -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RenderedScript:
    """A script with every placeholder replaced, and the values used (`{name: {"type", "value"}}`).

    `spans` records each replacement as (rendered start, rendered end, written start, written end), so a position
    Spark reports in the rendered script can be shown where the user wrote it (`written_position`).
    """

    sql: str
    values: dict[str, dict[str, str]]
    written: str = ""
    spans: tuple[tuple[int, int, int, int], ...] = ()

    def written_offset(self, offset: int) -> int:
        """The offset in the script as written of `offset` in the rendered one (a literal maps to its `${name}`)."""
        delta = 0
        for rendered_start, rendered_end, written_start, written_end in self.spans:
            if offset < rendered_start:
                break
            if offset < rendered_end:
                return written_start
            delta = written_end - rendered_end
        return offset + delta

    def written_position(self, line: int, column: int) -> tuple[int, int]:
        """(line, column), 1-based, in the script as written, of a position in the rendered script."""
        if not self.spans:
            return line, column
        starts = [0] + [i + 1 for i, ch in enumerate(self.sql) if ch == "\n"]
        offset = starts[min(max(line, 1), len(starts)) - 1] + max(column, 1) - 1
        written = self.written_offset(offset)
        return self.written.count("\n", 0, written) + 1, written - (self.written.rfind("\n", 0, written) + 1) + 1


def resolve_values(
    *,
    declared: Mapping[str, Mapping[str, str | None]],
    overrides: Mapping[str, RawValue] | None,
    logical_date: datetime,
    time_zone: str = "UTC",
) -> dict[str, tuple[str, ParamValue]]:
    """Each parameter's (type, value): overrides over defaults, plus `ds`/`ts` of `logical_date`.

    An override of an undeclared name, a bad value or a parameter with neither raises ParameterError.
    `ds` is the logical date's calendar day in `time_zone`; `ts` the instant in UTC.
    """
    overrides = overrides or {}
    if not isinstance(overrides, Mapping):
        raise ParameterError("parameters", "Expected an object of parameter names to values.")
    for name in overrides:
        if name not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise ParameterError(str(name)[:64], f"Unknown parameter '{str(name)[:64]}'; this job declares: {known}.")
    values: dict[str, tuple[str, ParamValue]] = {}
    for name, spec in specs_of(declared).items():
        if name in overrides:
            values[name] = (spec.type, parse_value(name, spec.type, overrides[name]))
        elif spec.default is not None:
            values[name] = (spec.type, spec.default)
    moment = logical_date.astimezone(UTC)
    values["ds"] = ("date", logical_date.astimezone(ZoneInfo(time_zone)).date())
    values["ts"] = ("timestamp", moment)
    return values


def script_rendered(
    sql: str,
    *,
    declared: Mapping[str, Mapping[str, str | None]],
    overrides: Mapping[str, RawValue] | None = None,
    logical_date: datetime,
    time_zone: str = "UTC",
) -> RenderedScript:
    """`sql` with its `${name}` parameters rendered: `declared` defaults under `overrides`, `${ds}`/`${ts}` of
    `logical_date` (`resolve_values`, then `render_script`). The one way a run, a stream, a schedule, a job save and
    the editor render a script; a bad or missing value raises ParameterError naming it."""
    values = resolve_values(declared=declared, overrides=overrides, logical_date=logical_date, time_zone=time_zone)
    return render_script(sql, values)


def render_script(sql: str, values: Mapping[str, tuple[str, ParamValue]]) -> RenderedScript:
    """Replace each `${name}` outside strings and comments by its typed literal; a missing value raises."""
    pieces: list[str] = []
    used: dict[str, dict[str, str]] = {}
    spans: list[tuple[int, int, int, int]] = []
    last = length = 0
    for name, start in placeholders(sql):
        if name not in values:
            raise ParameterError(name, f"Parameter '{name}' has no default; give it a value for this run.")
        type_, value = values[name]
        literal = render_literal(type_, value)
        _check_one_token(name, literal)
        pieces.append(sql[last:start])
        length += start - last
        spans.append((length, length + len(literal), start, start + len(name) + 3))
        pieces.append(literal)
        length += len(literal)
        last = start + len(name) + 3
        used[name] = {"type": type_, "value": display_value(type_, value)}
    pieces.append(sql[last:])
    for name, (type_, value) in values.items():
        used.setdefault(name, {"type": type_, "value": display_value(type_, value)})
    return RenderedScript(sql="".join(pieces), values=used, written=sql, spans=tuple(spans))
