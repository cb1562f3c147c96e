"""Reading a Spark SQL statement for the Delta connector: what it does and which Delta tables it names.

sqlglot (Spark dialect) parses the statement; rewriting is textual, on the exact spans of the table
references, so everything else in the statement reaches Spark exactly as the user wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import sqlglot
from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokenizer_core import Token  # where sqlglot defines it (sqlglot.tokens re-exports)

from lakeport_engine.delta.catalog import TableRef, check_name
from lakeport_engine.delta.errors import DeltaConnectorError
from lakeport_engine.sqltext import PUNCT, QUOTED, STRING, WORD, SqlTextError, significant, tokenize
from lakeport_engine.sqltext import Token as TextToken

_DIALECT = Spark()
# Tokens that end a table factor's `VERSION|TIMESTAMP AS OF <expr>` clause when no alias follows it.
_CLAUSE_END = {",", ")", ";", "WHERE", "JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "ON", "USING", "GROUP",
               "ORDER", "LIMIT", "UNION", "EXCEPT", "INTERSECT", "MINUS", "HAVING", "WINDOW", "LATERAL", "NATURAL",
               "SORT", "CLUSTER", "DISTRIBUTE", "SEMI", "ANTI", "TABLESAMPLE", "PIVOT", "UNPIVOT", "QUALIFY"}
_QUERY_START = {"SELECT", "WITH", "FROM", "VALUES", "TABLE", "("}
_NOT_TABLES = {"parquet", "json", "csv", "orc", "text", "avro", "delta", "binaryfile"}


@dataclass(frozen=True)
class Reference:
    """One Delta table named in the statement, with its span in the text and its time travel, if any."""

    ref: TableRef
    start: int
    end: int
    version: int | None = None
    timestamp_sql: str | None = None
    alias: str | None = None  # set when the reference had no alias: keeps `t.col` qualifiers working
    tag: str | None = None  # `VERSION AS OF 'name'`: a tag (Paimon catalogs only)

    @property
    def snapshot_key(self) -> tuple[Any, ...]:
        return (self.ref, self.version, self.timestamp_sql, self.tag)


@dataclass
class Plan:
    """What a statement asks of the connector."""

    kind: str  # query | insert | create_table | ctas | drop_table | create_db | drop_db | show_dbs | show_tables
    #            | describe | history | delete | update | truncate | merge | unsupported
    sql: str
    references: list[Reference] = field(default_factory=list)  # Delta tables the statement reads
    target: TableRef | None = None
    catalog: str | None = None
    database: str | None = None
    source_sql: str | None = None
    source_offset: int = 0
    overwrite: bool = False
    partition: dict[str, str | None] = field(default_factory=dict)  # static PARTITION (c = v)
    dynamic_partitions: list[str] = field(default_factory=list)  # PARTITION (c) without a value
    columns: list[str] | None = None
    by_name: bool = False
    if_exists: bool = False  # IF EXISTS / IF NOT EXISTS
    replace: bool = False  # CREATE OR REPLACE TABLE
    cascade: bool = False
    columns_ddl: str | None = None
    partition_by: list[str] = field(default_factory=list)
    partition_items: list[str] = field(default_factory=list)  # PARTITIONED BY items as written (Iceberg transforms)
    partition_ddl: str | None = None
    properties: dict[str, str] = field(default_factory=dict)
    comment: str | None = None
    extended: bool = False
    pattern: str | None = None
    limit: int | None = None
    reason: str | None = None
    keep_views: bool = False  # a temp view or cache defined over the snapshots refers to them by name later
    # DELETE/UPDATE: the target's alias, the WHERE condition and SET assignments as written (with their offsets in
    # `sql`, so Delta tables their subqueries read are rewritten onto snapshot views)
    alias: str | None = None
    condition: tuple[int, str] | None = None
    assignments: list[tuple[str, int, str]] = field(default_factory=list)  # (column, offset, expression)


class NamedCatalog(Protocol):
    """What the reader needs of a catalog: its default database (a DeltaCatalog, or the Iceberg connector's own)."""

    @property
    def default_database(self) -> str: ...


class StatementReader:
    """Finds the Delta tables of a statement, given the registered Delta catalogs and the current namespace.

    The embedded Iceberg connector reads its statements with the same reader (`table_format="iceberg"`).
    """

    def __init__(self, catalogs: Mapping[str, NamedCatalog], *, current_catalog: str | None,
                 current_database: str | None, is_temp_view: Callable[[str], bool],
                 table_format: str = "delta", metadata_tables: bool = False) -> None:
        self.catalogs = catalogs
        self.table_format = table_format
        self.metadata_tables = metadata_tables  # `cat.db.t.<name>` names a metadata table of `cat.db.t` (Iceberg)
        self.current_catalog = current_catalog.lower() if current_catalog else None
        self.current_database = current_database
        self.is_temp_view = is_temp_view

    @property
    def in_delta_catalog(self) -> bool:
        return self.current_catalog in self.catalogs

    # ---- names ---------------------------------------------------------------------------------------
    def table(self, parts: list[str]) -> TableRef | None:
        """The Delta table a 1-, 2- or 3-part name means here, or None when it is not a Delta table (with
        `metadata_tables`, a 4-part `cat.db.t.name` is metadata table `name` of `cat.db.t`)."""
        if len(parts) == 4 and self.metadata_tables and parts[0].lower() in self.catalogs:
            catalog = parts[0].lower()
            return TableRef(catalog, check_name(parts[1], what="database", catalog=catalog),
                            check_name(parts[2], what="table", catalog=catalog), metadata=parts[3].lower())
        if len(parts) == 3 and parts[0].lower() in self.catalogs:
            catalog = parts[0].lower()
            return TableRef(catalog, check_name(parts[1], what="database", catalog=catalog),
                            check_name(parts[2], what="table", catalog=catalog))
        if not self.in_delta_catalog or len(parts) not in (1, 2):
            return None
        catalog = self.current_catalog or ""
        default = self.current_database or self.catalogs[catalog].default_database
        database = default if len(parts) == 1 else parts[0]
        return TableRef(catalog, check_name(database, what="database", catalog=catalog),
                        check_name(parts[-1], what="table", catalog=catalog))

    def namespace(self, parts: list[str]) -> tuple[str, str] | None:
        """(catalog, database) for `cat.db` or `db` (in a Delta catalog), else None."""
        if len(parts) == 2 and parts[0].lower() in self.catalogs:
            catalog = parts[0].lower()
            return catalog, check_name(parts[1], what="database", catalog=catalog)
        if len(parts) == 1 and self.in_delta_catalog:
            catalog = self.current_catalog or ""
            return catalog, check_name(parts[0], what="database", catalog=catalog)
        return None

    # ---- statements ----------------------------------------------------------------------------------
    def read(self, sql: str) -> Plan | None:
        """The plan for `sql`, or None when the statement does not involve a Delta catalog."""
        text = sql.strip().rstrip(";").strip()
        plan = self._metadata_command(text)
        if plan is not None or not text:
            return plan
        try:
            tokens = _DIALECT.tokenize(text)
            tree = sqlglot.parse_one(text, dialect="spark")
        except (ParseError, TokenError) as exc:
            if self._mentions_delta(text):
                raise DeltaConnectorError(
                    f"could not read this statement on a Delta catalog: {str(exc).splitlines()[0]}"
                ) from exc
            return None
        return self._plan(text, tree, tokens)

    def _metadata_command(self, text: str) -> Plan | None:
        """SHOW DATABASES/TABLES and DESCRIBE HISTORY, read from the project's tokens (sqlglot has no grammar for them)."""
        cursor = _Cursor.of(text)
        if cursor is None:
            return None
        if cursor.word("show") and cursor.word("databases", "schemas", "namespaces"):
            name = cursor.name() if cursor.word("in", "from") else None
            pattern = cursor.pattern()
            if not cursor.done():
                return None
            catalog = name[0].lower() if name else self.current_catalog
            if catalog in self.catalogs:
                return Plan("show_dbs", text, catalog=catalog, pattern=pattern)
            return None
        cursor.rewind()
        if cursor.word("show") and cursor.word("tables"):
            name = cursor.name() if cursor.word("in", "from") else None
            pattern = cursor.pattern()
            if not cursor.done():
                return None
            if name:
                ns = self.namespace(name)
            elif self.in_delta_catalog:
                catalog = self.current_catalog or ""
                ns = (catalog, self.current_database or self.catalogs[catalog].default_database)
            else:
                ns = None
            if ns is None:
                return None
            return Plan("show_tables", text, catalog=ns[0], database=ns[1], pattern=pattern)
        cursor.rewind()
        if cursor.word("desc", "describe") and cursor.word("history"):
            name = cursor.name()
            limit = None
            if cursor.word("limit") and (limit := cursor.number()) is None:
                return None
            if not name or not cursor.done():
                return None
            ref = self.table(name)
            if ref is None:
                return None
            return Plan("history", text, target=ref, limit=limit)
        return None

    def _mentions_delta(self, text: str) -> bool:
        return self.in_delta_catalog or self._names_a_catalog(text)

    def _names_a_catalog(self, text: str) -> bool:
        """True if a name chain of `text` starts with one of the Delta catalogs (`lake.db.t`, `` `lake`.db ``)."""
        try:
            tokens = significant(tokenize(text))
        except SqlTextError:
            return False
        return any(tok.kind in (WORD, QUOTED) and tok.name.lower() in self.catalogs
                   and k + 1 < len(tokens) and tokens[k + 1].text == "."
                   and not (k > 0 and tokens[k - 1].text == ".") for k, tok in enumerate(tokens))

    def _plan(self, text: str, tree: exp.Expr, tokens: list[Token]) -> Plan | None:
        if isinstance(tree, exp.Insert):
            return self._insert(text, tree, tokens)
        if isinstance(tree, exp.Create):
            return self._create(text, tree, tokens)
        if isinstance(tree, exp.Drop):
            return self._drop(text, tree)
        if isinstance(tree, exp.Describe):
            table = tree.this
            ref = self.table(_parts(table)) if isinstance(table, exp.Table) and _parts(table) else None
            if ref is None or (len(_parts(table)) == 1 and self.is_temp_view(_parts(table)[0])):
                return None
            style = str(tree.args.get("style") or "").upper()
            return Plan("describe", text, target=ref, extended=style in ("EXTENDED", "FORMATTED"))
        if isinstance(tree, exp.Merge) and isinstance(tree.this, exp.Table):
            ref = self._delta_ref(tree.this, tree)
            if ref is not None:
                alias_node = tree.this.args.get("alias")
                return Plan("merge", text, target=ref, alias=alias_node.name if alias_node is not None else ref.table,
                            references=self.references(text, tree, tokens, skip=tree.this))
        if isinstance(tree, exp.Update | exp.Delete | exp.TruncateTable):
            plan = self._row_change(text, tree, tokens)
            if plan is not None:
                return plan
        if isinstance(tree, exp.Update | exp.Delete | exp.Merge | exp.Alter | exp.TruncateTable):
            targets = [t for t in tree.find_all(exp.Table) if self._delta_ref(t, tree) is not None]
            if not targets:
                return None
            verb = {exp.Update: "UPDATE", exp.Delete: "DELETE", exp.Merge: "MERGE", exp.Alter: "ALTER TABLE",
                    exp.TruncateTable: "TRUNCATE TABLE"}[type(tree)]
            return Plan("unsupported", text, reason=verb)
        if isinstance(tree, exp.Command) and (explained := _explained_offset(text)) is not None:
            inner = text[explained:]
            inner_plan = self.read(inner)
            if inner_plan is None:
                return None
            if inner_plan.kind != "query":
                return Plan("unsupported", text, reason=f"EXPLAIN of {inner_plan.kind.upper()}")
            shift = explained
            shifted = [replace(r, start=r.start + shift, end=r.end + shift) for r in inner_plan.references]
            return Plan("query", text, references=shifted)
        if isinstance(tree, exp.Command):
            if self._names_a_catalog(text):
                return Plan("unsupported", text, reason=str(tree.this).upper())
            return None
        refs = self.references(text, tree, tokens)
        if not refs:
            return None
        return Plan("query", text, references=refs, keep_views=isinstance(tree, exp.Cache))

    def references(self, text: str, tree: exp.Expr, tokens: list[Token], *,
                   skip: exp.Expr | None = None, offset: int = 0) -> list[Reference]:
        """The Delta tables `tree` reads (not `skip`, a write target), with spans shifted by `offset`."""
        found: list[Reference] = []
        for table in tree.find_all(exp.Table):
            if table is skip:
                continue
            ref = self._delta_ref(table, tree)
            if ref is None:
                continue
            found.append(self._reference(text, table, ref, tokens, offset))
        return found

    def _delta_ref(self, table: exp.Table, tree: exp.Expr) -> TableRef | None:
        parts = _parts(table)
        if not parts or (len(parts) < 3 and any("/" in p or ":" in p for p in parts)):
            return None  # parquet.`/path` and friends: files, not tables
        if len(parts) == 2 and parts[0].lower() in _NOT_TABLES and parts[0].lower() not in self.catalogs:
            return None
        if len(parts) == 1:
            ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
            if parts[0].lower() in ctes or self.is_temp_view(parts[0]):
                return None
        return self.table(parts)

    def _reference(self, text: str, table: exp.Table, ref: TableRef, tokens: list[Token],
                   offset: int) -> Reference:
        idents = [p for p in table.parts if isinstance(p, exp.Identifier)]
        start, end = idents[0].meta["start"], idents[-1].meta["end"] + 1
        version = timestamp_sql = tag = None
        travel = table.args.get("version")
        if isinstance(travel, exp.Version):
            index = next(i for i, t in enumerate(tokens) if t.start == idents[-1].meta["start"])
            alias_start = None
            if table.args.get("alias") is not None and isinstance(table.args["alias"].this, exp.Identifier):
                alias_start = table.args["alias"].this.meta.get("start")
            last, expr_first = _version_clause(tokens, index + 1, alias_start)
            end = tokens[last].end + 1
            clause = text[tokens[expr_first].start:end].strip()
            tag_text = re.fullmatch(r"'([A-Za-z0-9][A-Za-z0-9_.-]{0,127})'", clause)
            if str(travel.this).upper() == "VERSION" and self.table_format == "paimon" and tag_text:
                tag = tag_text.group(1)
            elif str(travel.this).upper() == "VERSION":
                if not re.fullmatch(r"\d+", clause):
                    raise DeltaConnectorError(f"VERSION AS OF on {ref} needs a version number, not '{clause}'.")
                version = int(clause)
            else:
                timestamp_sql = clause
        alias = None if table.args.get("alias") is not None else (ref.metadata or ref.table)
        return Reference(ref, start + offset, end + offset, version, timestamp_sql, alias, tag)

    def _insert(self, text: str, tree: exp.Insert, tokens: list[Token]) -> Plan | None:
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        if not isinstance(target, exp.Table):
            return None
        ref = self._delta_ref(target, tree) if not (len(_parts(target)) == 1 and self.is_temp_view(
            _parts(target)[0])) else None
        if ref is None:
            refs = self.references(text, tree, tokens, skip=target)
            return Plan("query", text, references=refs) if refs else None
        idents = [p for p in target.parts if isinstance(p, exp.Identifier)]
        index = next(i for i, t in enumerate(tokens) if t.start == idents[-1].meta["start"]) + 1
        # Skip PARTITION (…), a column list and BY NAME: the source query starts after them.
        while index < len(tokens):
            word = tokens[index].text.upper()
            if word == "PARTITION" or word == "(" and not _starts_query(tokens, index):
                index = _after_parens(tokens, index + 1 if word == "PARTITION" else index)
            elif word in ("BY", "NAME", "TABLE"):
                index += 1
            else:
                break
        if index >= len(tokens):
            raise DeltaConnectorError(f"INSERT into {ref} has no query or VALUES.")
        plan = Plan("insert", text, target=ref, overwrite=bool(tree.args.get("overwrite")),
                    by_name=bool(tree.args.get("by_name")))
        plan.source_offset = tokens[index].start
        plan.source_sql = text[plan.source_offset:]
        if isinstance(tree.this, exp.Schema):
            plan.columns = [i.name for i in tree.this.expressions]
        partition = target.args.get("partition")
        if isinstance(partition, exp.Partition):
            for item in partition.expressions:
                if isinstance(item, exp.EQ):
                    plan.partition[item.this.name] = _literal(item.expression, ref)
                elif isinstance(item, exp.Column):
                    plan.dynamic_partitions.append(item.name)
        source = tree.expression
        if source is not None:
            plan.references = [r for r in self.references(text, source, tokens)]
        return plan

    def _create(self, text: str, tree: exp.Create, tokens: list[Token]) -> Plan | None:
        kind = str(tree.args.get("kind") or "").upper()
        if kind in ("SCHEMA", "DATABASE"):
            ns = self.namespace(_parts(tree.this)) if isinstance(tree.this, exp.Table) else None
            if ns is None:
                return None
            self._no_location(tree, f"database {ns[0]}.{ns[1]}")
            return Plan("create_db", text, catalog=ns[0], database=ns[1], if_exists=bool(tree.args.get("exists")))
        if kind == "VIEW":
            refs = self.references(text, tree, tokens)
            if not refs:
                return None
            props = (tree.args.get("properties") or exp.Properties(expressions=[])).expressions
            if not any(isinstance(p, exp.TemporaryProperty) for p in props):
                return Plan("unsupported", text, reason="CREATE VIEW (a permanent view; use CREATE TEMPORARY VIEW)")
            return Plan("query", text, references=refs, keep_views=True)
        if kind != "TABLE":
            refs = self.references(text, tree, tokens)
            return Plan("query", text, references=refs) if refs else None
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
        ref = self._delta_ref(target, tree) if isinstance(target, exp.Table) else None
        if ref is None:
            refs = self.references(text, tree, tokens, skip=target)
            return Plan("query", text, references=refs) if refs else None
        self._no_location(tree, f"table {ref}")
        plan = Plan("create_table", text, target=ref, if_exists=bool(tree.args.get("exists")),
                    replace=bool(tree.args.get("replace")))
        if plan.replace and plan.if_exists:
            raise DeltaConnectorError(f"CREATE OR REPLACE TABLE {ref}: IF NOT EXISTS cannot be combined with OR "
                                      "REPLACE.")
        idents = [p for p in target.parts if isinstance(p, exp.Identifier)]
        index = next(i for i, t in enumerate(tokens) if t.start == idents[-1].meta["start"]) + 1
        if isinstance(tree.this, exp.Schema) and index < len(tokens) and tokens[index].text == "(":
            close = _after_parens(tokens, index) - 1
            plan.columns_ddl = text[tokens[index].end + 1:tokens[close].start].strip()
        for prop in (tree.args.get("properties") or exp.Properties(expressions=[])).expressions:
            if isinstance(prop, exp.FileFormatProperty):
                fmt = prop.this.name.lower() if isinstance(prop.this, exp.Expression) else str(prop.this).lower()
                if fmt != self.table_format:
                    raise DeltaConnectorError(f"table {ref} is in a {self.table_format.title()} catalog: use USING "
                                              f"{self.table_format}, not USING {fmt}.")
            elif isinstance(prop, exp.PartitionedByProperty):
                items = prop.this.expressions if isinstance(prop.this, exp.Schema) else [prop.this]
                typed = []
                for item in items:
                    plan.partition_by.append(item.name)
                    plan.partition_items.append(item.sql(dialect="spark"))
                    if isinstance(item, exp.ColumnDef) and item.args.get("kind") is not None:
                        typed.append(f"`{item.name}` {item.args['kind'].sql(dialect='spark')}")
                plan.partition_ddl = ", ".join(typed) or None
            elif isinstance(prop, exp.SchemaCommentProperty):
                plan.comment = prop.this.name
            elif isinstance(prop, exp.Property):
                key = prop.this.name if isinstance(prop.this, exp.Expression) else str(prop.this)
                value = prop.args.get("value")
                plan.properties[key] = value.name if isinstance(value, exp.Expression) else str(value)
            else:
                raise DeltaConnectorError(f"CREATE TABLE {ref}: the clause '{prop.sql(dialect='spark')}' is not "
                                          "supported by the embedded Delta connector.")
        if tree.expression is not None:
            plan.kind = "ctas"
            start = _ctas_query_start(tokens, index)
            plan.source_offset = tokens[start].start
            plan.source_sql = text[plan.source_offset:]
            plan.references = self.references(text, tree.expression, tokens)
        elif plan.columns_ddl is None:
            raise DeltaConnectorError(f"CREATE TABLE {ref} needs a column list or AS SELECT.")
        return plan

    def _row_change(self, text: str, tree: exp.Update | exp.Delete | exp.TruncateTable,
                    tokens: list[Token]) -> Plan | None:
        """DELETE/UPDATE/TRUNCATE TABLE whose target is a Delta table; None when the target is not one of ours."""
        if isinstance(tree, exp.TruncateTable):
            tables = tree.expressions
            if len(tables) != 1 or not isinstance(tables[0], exp.Table):
                return None
            ref = self._delta_ref(tables[0], tree)
            if ref is None:
                return None
            if tree.args.get("partition") is not None or tables[0].args.get("partition") is not None:
                return Plan("unsupported", text, reason="TRUNCATE TABLE … PARTITION (use DELETE FROM … WHERE)")
            return Plan("truncate", text, target=ref)
        target = tree.this
        if not isinstance(target, exp.Table):
            return None
        ref = self._delta_ref(target, tree)
        if ref is None:
            return None
        if isinstance(tree, exp.Delete) and (tree.args.get("using") or tree.args.get("tables")):
            return Plan("unsupported", text, reason="DELETE … USING (use MERGE INTO)")
        alias_node = target.args.get("alias")
        alias = alias_node.name if alias_node is not None else ref.table
        kind = "delete" if isinstance(tree, exp.Delete) else "update"
        plan = Plan(kind, text, target=ref, alias=alias)
        plan.references = self.references(text, tree, tokens, skip=target)
        clauses = _top_level_clauses(tokens, text)
        if "WHERE" in clauses:
            plan.condition = clauses["WHERE"]
        if kind == "update":
            if "SET" not in clauses:
                raise DeltaConnectorError(f"UPDATE {ref} needs SET column = value.")
            offset, body = clauses["SET"]
            for start, part in _split_top_level(body, offset, ","):
                column, equals, value = part.partition("=")
                if not equals or not value.strip():
                    raise DeltaConnectorError(f"UPDATE {ref}: '{part.strip()}' is not an assignment column = value.")
                name = column.strip().split(".")[-1].strip("`")
                plan.assignments.append((name, start + len(column) + 1, value))
        return plan

    def _no_location(self, tree: exp.Create, what: str) -> None:
        for prop in (tree.args.get("properties") or exp.Properties(expressions=[])).expressions:
            if isinstance(prop, exp.LocationProperty):
                raise DeltaConnectorError(f"{what}: LOCATION is not allowed in a Delta catalog; tables live at "
                                          "<warehouse>/<database>/<table>.")

    def _drop(self, text: str, tree: exp.Drop) -> Plan | None:
        kind = str(tree.args.get("kind") or "").upper()
        tables = tree.args.get("tables") or ([tree.this] if tree.this is not None else [])
        if not tables or not isinstance(tables[0], exp.Table):
            return None
        if kind in ("SCHEMA", "DATABASE"):
            ns = self.namespace(_parts(tables[0]))
            if ns is None:
                return None
            return Plan("drop_db", text, catalog=ns[0], database=ns[1], if_exists=bool(tree.args.get("exists")),
                        cascade=bool(tree.args.get("cascade")))
        if kind != "TABLE":
            return None
        ref = self._delta_ref(tables[0], tree)
        if ref is None:
            return None
        return Plan("drop_table", text, target=ref, if_exists=bool(tree.args.get("exists")))


def rewrite(text: str, references: list[Reference], views: Mapping[tuple[Any, ...], str], *, offset: int = 0) -> str:
    """`text` with each Delta table reference replaced by the temp view holding its snapshot."""
    out = text
    for reference in sorted(references, key=lambda r: r.start, reverse=True):
        view = views[reference.snapshot_key]
        replacement = f"`{view}`" + (f" AS `{reference.alias}`" if reference.alias else "")
        out = out[:reference.start - offset] + replacement + out[reference.end - offset:]
    return out


def _top_level_clauses(tokens: list[Token], text: str) -> dict[str, tuple[int, str]]:
    """`SET` and `WHERE` clauses of an UPDATE/DELETE as written: keyword → (offset of its body, body text).

    Only keywords outside parentheses count (a subquery has its own WHERE); a clause ends where the next begins.
    """
    starts: list[tuple[str, int, int]] = []  # (keyword, keyword start, body start)
    depth = 0
    for index, token in enumerate(tokens):
        if token.text == "(":
            depth += 1
        elif token.text == ")":
            depth -= 1
        elif (depth == 0 and token.text.upper() in ("SET", "WHERE") and index + 1 < len(tokens)
              and token.text.upper() not in {k for k, _, _ in starts}):
            starts.append((token.text.upper(), token.start, tokens[index + 1].start))
    clauses: dict[str, tuple[int, str]] = {}
    for position, (keyword, _, body) in enumerate(starts):
        end = starts[position + 1][1] if position + 1 < len(starts) else len(text)
        clauses[keyword] = (body, text[body:end])
    return clauses


def _split_top_level(body: str, offset: int, separator: str) -> list[tuple[int, str]]:
    """`body` split at `separator` characters outside parentheses, strings and quoted names: (offset, part)."""
    parts: list[tuple[int, str]] = []
    depth, start = 0, 0
    tokens = [t for t in tokenize(body) if t.kind not in ("space", "comment")]
    for token in tokens:
        if token.kind == PUNCT and token.text == "(":
            depth += 1
        elif token.kind == PUNCT and token.text == ")":
            depth -= 1
        elif token.kind == PUNCT and token.text == separator and depth == 0:
            parts.append((offset + start, body[start:token.start]))
            start = token.end
    parts.append((offset + start, body[start:]))
    return parts


def _parts(table: exp.Expression) -> list[str]:
    if not isinstance(table, exp.Table):
        return []
    parts = table.parts
    if not parts or not all(isinstance(p, exp.Identifier) for p in parts):
        return []
    return [p.name for p in parts]


def _literal(node: exp.Expression, ref: TableRef) -> str | None:
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Literal):
        return node.name
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        return "-" + node.this.name
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    if isinstance(node, exp.Cast | exp.TsOrDsToDate | exp.Anonymous) and isinstance(node.this, exp.Literal):
        return node.this.name
    raise DeltaConnectorError(f"PARTITION values for {ref} must be literals, not '{node.sql(dialect='spark')}'.")


def _starts_query(tokens: list[Token], index: int) -> bool:
    """True if the parenthesis at `index` opens a query (`(SELECT …)`) rather than a column list."""
    return index + 1 < len(tokens) and tokens[index + 1].text.upper() in ("SELECT", "WITH", "FROM", "VALUES")


def _after_parens(tokens: list[Token], index: int) -> int:
    """Index of the token after the parenthesised group opening at `index`."""
    depth = 0
    for i in range(index, len(tokens)):
        if tokens[i].text == "(":
            depth += 1
        elif tokens[i].text == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    raise DeltaConnectorError("unbalanced parentheses in the statement.")


def _version_clause(tokens: list[Token], index: int, alias_start: int | None) -> tuple[int, int]:
    """(last token of a `[FOR] VERSION|TIMESTAMP AS OF <expr>` clause, first token of <expr>)."""
    i = index
    if tokens[i].text.upper() == "FOR":
        i += 1
    i += 3  # VERSION|TIMESTAMP, AS, OF
    first = i
    depth = 0
    last = i
    while i < len(tokens):
        word = tokens[i].text.upper()
        if alias_start is not None and tokens[i].start >= alias_start:
            break
        if depth == 0 and word in _CLAUSE_END and tokens[i].token_type.name not in ("STRING",):
            break
        if word == "(":
            depth += 1
        elif word == ")":
            depth -= 1
        last = i
        i += 1
    if alias_start is not None and tokens[last].text.upper() == "AS" and last > first:
        last -= 1
    return last, first


def _ctas_query_start(tokens: list[Token], index: int) -> int:
    depth = 0
    for i in range(index, len(tokens)):
        word = tokens[i].text.upper()
        if word == "(":
            depth += 1
        elif word == ")":
            depth -= 1
        elif depth == 0 and word == "AS" and i + 1 < len(tokens) and tokens[i + 1].text.upper() in _QUERY_START:
            return i + 1
    raise DeltaConnectorError("CREATE TABLE … AS: could not find the query.")


# ---- metadata commands, on the project's SQL tokens ------------------------------------------------------
_EXPLAIN_MODES = ("extended", "formatted", "codegen", "cost")


def _explained_offset(text: str) -> int | None:
    """Where the statement an `EXPLAIN [mode]` explains begins in `text`, or None if `text` is no EXPLAIN."""
    cursor = _Cursor.of(text)
    if cursor is None or not cursor.word("explain"):
        return None
    cursor.word(*_EXPLAIN_MODES)
    return None if cursor.done() else cursor.tokens[cursor.position].start


@dataclass
class _Cursor:
    """A read position in a statement's significant tokens, for the few fixed-shape commands read here."""

    tokens: list[TextToken]
    position: int = 0

    @classmethod
    def of(cls, text: str) -> _Cursor | None:
        try:
            return cls(significant(tokenize(text)))
        except SqlTextError:
            return None  # Spark's parser reports it with its position

    def rewind(self) -> None:
        self.position = 0

    def done(self) -> bool:
        return self.position >= len(self.tokens)

    def _peek(self) -> TextToken | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def word(self, *options: str) -> str | None:
        """Consume a keyword among `options` (lower case)."""
        tok = self._peek()
        if tok is not None and tok.kind == WORD and tok.lower in options:
            self.position += 1
            return tok.lower
        return None

    def name(self) -> list[str] | None:
        """Consume a name of one to three parts (`a`, `` `a b`.c ``, `a.b.c`): its parts, unquoted."""
        parts: list[str] = []
        while (tok := self._peek()) is not None and tok.kind in (WORD, QUOTED):
            parts.append(tok.name)
            self.position += 1
            dot = self._peek()
            if dot is None or dot.kind != PUNCT or dot.text != "." or len(parts) == 3:
                break
            self.position += 1
        return parts or None

    def pattern(self) -> str | None:
        """Consume `[LIKE] '<pattern>'`: the pattern, or None when there is none."""
        start = self.position
        self.word("like")
        tok = self._peek()
        if tok is not None and tok.kind == STRING and tok.text.startswith("'"):
            self.position += 1
            return tok.text[1:-1]
        self.position = start
        return None

    def number(self) -> int | None:
        tok = self._peek()
        if tok is not None and tok.kind == WORD and tok.text.isdigit():
            self.position += 1
            return int(tok.text)
        return None
