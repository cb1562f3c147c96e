"""Resolving catalog names in Spark SQL statements at run time, against a team's CatalogStore.

Before each statement runs, the resolver looks up every catalog the statement needs — `USE CATALOG x`,
`x.db.t`, `USE x.db`, and the current catalog — and binds it into the Spark session if it is new or has
changed in the store since it was bound. Nothing is registered up front, so a script only touches the
catalogs it uses, and a catalog created or edited while the session lives is seen by the next statement.
"""

from __future__ import annotations

import logging
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lakeport_engine.access import AccessPolicy
from lakeport_engine.bindings import (
    BindContext,
    Binding,
    BindingFailure,
    binding_for,
    session_catalogs,
)
from lakeport_engine.bindings import delta as delta_binding
from lakeport_engine.errors import CatalogBindingError, SparkRuntimeError, UnknownCatalogError
from lakeport_engine.grants_sql import access_statement, is_access_statement
from lakeport_engine.guard import GuardScope, SqlGuard
from lakeport_engine.locations import LocationJudge, check_locations, warehouse_judge
from lakeport_engine.matviews import view_statement_text, view_store_of
from lakeport_engine.protected_reads import (
    SPARK_READ_TYPES,
    ProtectedStatement,
    SparkReadCatalog,
    hive_refusal,
    substitute,
)
from lakeport_engine.protected_reads import drop as drop_policy_views
from lakeport_engine.row_policy import RowPolicy, RowPolicyRefusal, session_row_policy
from lakeport_engine.sqltext import (
    NameChain,
    Statement,
    UseCatalog,
    delta_command,
    name_chains,
    rewrite,
    significant,
    split_statements,
    use_catalog,
    use_namespace,
)
from lakeport_engine.store import CatalogEntry, CatalogStore, CatalogStoreError
from lakeport_engine.syntax import parse_error
from lakeport_kernel.redaction import redact

logger = logging.getLogger("lakeport.spark")

SESSION_CATALOG = "spark_catalog"
# Catalogs Spark always has; a statement may name them without the store knowing them.
BUILTIN_CATALOGS = frozenset({SESSION_CATALOG, "system"})
_CATALOG_NOT_FOUND = re.compile(r"CATALOG_NOT_FOUND\]\s*The catalog `?([^`\s]+)`? (?:is )?not found", re.I)
_CONNECTION_FAILURE = re.compile(
    r"FAILED_JDBC\.CONNECTION|Connection refused|connect timed out|Connection to .* refused|"
    r"Could not connect|Couldn't connect|Communications link failure|Socket fail to connect|"
    r"The connection attempt failed|UnknownHostException|"
    # the server went away mid-query (stopped, restarted, crashed)
    r"terminating connection due to administrator command|An I/O error occurred while sending to the backend|"
    r"This connection has been closed|Connection reset|server closed the connection unexpectedly",
    re.I,
)


@dataclass(frozen=True)
class StatementRefs:
    """What a statement says about catalogs, read from its tokens (no store, no Spark)."""

    use: UseCatalog | None
    namespace: tuple[str, ...] | None
    chains: list[NameChain]

    @property
    def candidates(self) -> list[str]:
        """Names that may be catalogs: USE CATALOG target, first parts of 3+-part chains and of `cat.db` namespaces."""
        names: list[str] = []
        if self.use is not None:
            names.append(self.use.catalog.lower())
        if self.namespace is not None and len(self.namespace) >= 2:
            names.append(self.namespace[0].lower())
        for chain in self.chains:
            if len(chain.parts) >= 3 or (len(chain.parts) == 2 and chain.in_namespace_position):
                names.append(chain.parts[0].lower())
        return list(dict.fromkeys(names))

    @property
    def required(self) -> list[str]:
        """Names that must be catalogs: the USE CATALOG target and first parts of 3+-part table names."""
        names = [self.use.catalog.lower()] if self.use is not None else []
        names += [c.parts[0].lower() for c in self.chains if len(c.parts) >= 3 and c.in_table_position]
        return list(dict.fromkeys(names))


def statement_refs(stmt: Statement) -> StatementRefs:
    """Read the catalog references of one statement."""
    return StatementRefs(use_catalog(stmt.tokens), use_namespace(stmt.tokens), name_chains(stmt.tokens))


class CatalogResolver:
    """Binds a team's catalogs into one Spark session on demand and runs statements that use them.

    `connect_timeout` bounds JDBC connection set-up (seconds). `delta_mode` is "embedded" (default) or
    "jvm" (LAKEPORT_DELTA_MODE). `on_log` receives redacted progress messages. `guard` checks every statement
    after its catalogs are bound and before it runs (the SQL guard; None only for the resolver's own tests).
    """

    def __init__(self, spark: Any, store: CatalogStore, *, team: str, connect_timeout: float = 10.0,
                 delta_mode: str | None = None, on_log: Callable[[str], None] | None = None,
                 guard: SqlGuard | None = None, access: AccessPolicy | None = None) -> None:
        self.spark = spark
        self.guard = guard
        self.access = access  # the caller's privileges (docs/access.md); None: the role defaults
        self.store = store
        self.team = team
        self.connect_timeout = connect_timeout
        self.delta_mode = delta_binding.delta_mode(delta_mode)
        self._on_log = on_log
        self._state = session_catalogs(spark)
        self.current_catalog: str | None = None
        self.current_database: str | None = None
        self.used: list[str] = []

    # ---- static checks ---------------------------------------------------------------------------------
    def spark_catalogs(self) -> set[str]:
        """Catalogs the session knows without the store: built-ins and `spark.sql.catalog.<name>` set by the user."""
        ours = set(self._state.bindings)
        names = set(BUILTIN_CATALOGS)
        for key in self.spark.conf.getAll:
            if key.startswith("spark.sql.catalog."):
                rest = key.removeprefix("spark.sql.catalog.")
                if "." not in rest and rest not in ours:
                    names.add(rest)
        return names

    def unknown_catalogs(self, statements: list[Statement]) -> UnknownCatalogError | None:
        """The first catalog some statement needs that neither the store nor Spark knows (checked before running)."""
        spark_known: set[str] | None = None
        checked: dict[str, bool] = {}
        for stmt in statements:
            for name in statement_refs(stmt).required:
                if name not in checked:
                    checked[name] = self.store.contains(name)
                    if not checked[name]:  # the conf dump is a JVM round trip: only for names the store lacks
                        spark_known = self.spark_catalogs() if spark_known is None else spark_known
                        checked[name] = name in spark_known
                if not checked[name]:
                    return UnknownCatalogError(name, self.team, statement=stmt.index)
        return None

    def syntax_error(self, stmt: Statement) -> tuple[int, int, str] | None:
        """Spark's parser message for the statement, at a script-absolute (line, column); None if it parses."""
        return parse_error(self.spark._jsparkSession.sessionState().sqlParser(), stmt)

    # ---- binding -----------------------------------------------------------------------------------------
    def _log(self, message: str) -> None:
        message = redact(message)
        logger.info(message)
        if self._on_log is not None:
            self._on_log(message)

    def bind(self, name: str, *, statement: int | None = None, required: bool = True) -> Binding | None:
        """Bind the store's catalog `name` (or re-bind it if it changed); None when it is not a store catalog."""
        entry = self.store.get_catalog(name)
        if entry is None:
            if required and name not in self.spark_catalogs():
                raise UnknownCatalogError(name, self.team, statement=statement)
            return None
        with self._state.lock:
            binding = self._state.bindings.get(entry.name)
            if binding is not None and binding.fingerprint == entry.fingerprint:
                self._mark_used(entry.name)
                return binding
            try:
                binding = self._bind_entry(entry, binding)
            except BindingFailure as exc:
                raise CatalogBindingError(redact(str(exc)), statement=statement) from None
            self._state.bindings[entry.name] = binding
        self._mark_used(entry.name)
        return binding

    def _mark_used(self, name: str) -> None:
        if name not in self.used:
            self.used.append(name)

    def _context(self) -> BindContext:
        return BindContext(self.spark, self._state, self.connect_timeout, self.delta_mode, self._log)

    def _bind_entry(self, entry: CatalogEntry, old: Binding | None) -> Binding:
        kind = binding_for(entry.type)
        if old is not None and old.type != entry.type:
            binding_for(old.type).unbind(self._context(), old)  # the catalog was re-created with another type
            old = None
        verb = "registered" if old is None else f"re-registered (changed, version {old.version} → {entry.version})"
        binding = kind.bind(self._context(), entry, old)
        self._log(f"Catalog '{entry.name}' {verb}: {kind.summary(binding)}.")
        return binding

    def unbind(self, name: str) -> None:
        """Remove the catalog `name` from this session if bound (its type undoes what binding set)."""
        with self._state.lock:
            binding = self._state.bindings.pop(name.lower(), None)
            if binding is not None:
                binding_for(binding.type).unbind(self._context(), binding)

    def binding(self, name: str | None) -> Binding | None:
        """The current binding of a store catalog in this session, if bound."""
        return self._state.bindings.get(name) if name else None

    # ---- execution ---------------------------------------------------------------------------------------
    def prepare(self, stmt: Statement) -> tuple[str, list[Binding]]:
        """Bind what `stmt` needs and return its Spark SQL (store names rewritten to Spark names) and the bindings."""
        refs = statement_refs(stmt)
        required = set(refs.required)
        bindings: dict[str, Binding] = {}
        names = list(refs.candidates)
        if self.current_catalog and self.current_catalog not in names:
            names.append(self.current_catalog)  # unqualified names resolve in the current catalog
        for name in names:
            binding = self.bind(name, statement=stmt.index, required=name in required)
            if binding is not None:
                bindings[name] = binding
        replacements: dict[int, str] = {}
        for chain in refs.chains:
            head = chain.tokens[0]
            binding = bindings.get(chain.parts[0].lower())
            if binding is None or binding.spark_name is None:
                continue
            if (len(chain.parts) >= 3 or chain.in_namespace_position) and head.name != binding.spark_name:
                replacements[head.start] = _quote(binding.spark_name)
        return rewrite(stmt.sql, replacements, stmt.tokens), list(bindings.values())

    def guard_scope(self, temp_views: frozenset[str] = frozenset(), *, policy_views: bool = False) -> GuardScope:
        """The team's catalogs bound in this session and the current catalog, as the SQL guard needs them.
        `policy_views`: the statement runs through `execute`, which reads protected JDBC and Hive tables through
        policy views (the streaming runtime does not: there such a read stays refused)."""
        bindings = list(self._state.bindings.values())
        jsession = self.spark._jsparkSession
        current = self.binding(self.current_catalog)
        return GuardScope(
            catalogs=frozenset(b.spark_name for b in bindings if b.spark_name and b.spark_name.lower() != SESSION_CATALOG),
            embedded=frozenset(b.name for b in bindings if b.embedded),
            session_catalog_bound=any((b.spark_name or "").lower() == SESSION_CATALOG for b in bindings),
            current_catalog=lambda: str(jsession.sessionState().catalogManager().currentCatalog().name()),
            current_is_embedded=current is not None and current.embedded,
            is_temp_view=lambda name: bool(jsession.sessionState().catalog().getTempView(name).isDefined()),
            temp_views=temp_views,
            bind=self._bind_for_guard,
            access=self.access,
            rows=session_row_policy(self.spark),
            spark_read=frozenset(b.name for b in bindings if b.type in SPARK_READ_TYPES and b.spark_name
                                 ) if policy_views else frozenset(),
            aliases={b.spark_name: b.name for b in bindings if b.spark_name},
            current_names=lambda: self._current_names(jsession, current),
        )

    def _current_names(self, jsession: Any, current: Binding | None) -> tuple[str | None, str | None]:
        """The team catalog and database unqualified names resolve in (Spark's own when the resolver tracks none)."""
        if current is not None and current.embedded:
            return current.name, self.current_database
        manager = jsession.sessionState().catalogManager()
        namespace = manager.currentNamespace()
        database = ".".join(str(namespace[i]) for i in range(len(namespace))) if namespace is not None else None
        spark_current = str(manager.currentCatalog().name())
        team = next((b.name for b in self._state.bindings.values() if b.spark_name == spark_current), spark_current)
        return team, database or self.current_database or None

    def _bind_for_guard(self, name: str) -> bool:
        """Bind the team's catalog `name` if the store has it; True when Spark then knows it by that name."""
        binding = self.bind(name, required=False)
        return binding is not None and binding.spark_name == name

    def check(self, sql: str, stmt: Statement, *, temp_views: frozenset[str] = frozenset()) -> None:
        """Apply the SQL guard to a prepared statement (raises GuardRefusal; nothing without a guard), then, on a
        session whose session catalog is a team's Hive catalog, the table locations (raises LocationRefusal)."""
        if self.guard is not None:
            self.guard.check(sql, stmt, self.guard_scope(temp_views, policy_views=True))
        self.check_locations(sql, stmt)

    def check_locations(self, sql: str, stmt: Statement) -> None:
        """On a session whose session catalog is a team's Hive catalog, refuse a statement that touches a table or
        partition location the team may not use (raises LocationRefusal; lakeport_engine/locations.py)."""
        if self._state.hive is not None:
            check_locations(self.spark, sql, self._location_judge(), statement=stmt.index, line=stmt.line)

    def _location_judge(self) -> LocationJudge:
        """The platform's judgement when the store can ask it (engines); else only the Hive catalog's warehouse."""
        judge = getattr(self.store, "check_locations", None)
        if callable(judge):
            return judge  # type: ignore[no-any-return]
        hive = self._state.bindings.get(self._state.hive or "")
        warehouse = str((hive.configuration if hive else {}).get("warehouse") or "")
        return warehouse_judge([warehouse, str(self.spark.conf.get("spark.sql.warehouse.dir", "") or "")])

    def execute(self, stmt: Statement) -> Any:
        """Run one statement (binding its catalogs first, then the guard); returns Spark's DataFrame or None."""
        if is_access_statement(stmt.sql):
            return self._access_statement(stmt)
        refs = statement_refs(stmt)
        sql, bindings = self.prepare(stmt)
        if refs.use is not None:
            return self._use_catalog(refs.use.catalog.lower(), bindings)
        self.check(sql, stmt)
        used = self._track_use(refs.namespace, bindings) if refs.namespace is not None else None
        if used is not None and used.embedded:
            return None  # USE of a database in an embedded catalog (Delta): ours to track, Spark has no such catalog
        protected = self._protect_reads(sql, stmt)
        try:
            result = self._run_prepared(protected.sql, stmt, bindings)
        except BaseException:
            drop_policy_views(self.spark, protected.views)
            raise
        if not protected.keep:
            drop_policy_views(self.spark, protected.views)  # the analyzed plan inlined them
        return result

    def _protect_reads(self, sql: str, stmt: Statement) -> ProtectedStatement:
        """`sql` with the protected tables of JDBC and Hive catalogs it reads put behind policy views, then checked
        by Spark's parser and (Hive) analyzer: no read of one is left outside its policy (docs/access.md)."""
        rows = session_row_policy(self.spark)
        bound = [b for b in self._state.bindings.values() if b.type in SPARK_READ_TYPES and b.spark_name]
        if not rows or not any(t[0] in {b.name for b in bound} for t in rows.tables):
            return ProtectedStatement(sql)
        if delta_command(sql) is not None or view_statement_text(sql) is not None:
            return ProtectedStatement(sql)  # the Delta connector's own statements (the guard refused JDBC/Hive reads)
        catalogs = {str(b.spark_name).lower(): SparkReadCatalog(b.name, str(
            binding_for(b.type).default_database(b.configuration) or "default")) for b in bound}
        current = self.binding(self.current_catalog)
        manager = self.spark._jsparkSession.sessionState().catalogManager()
        namespace = manager.currentNamespace()
        spark_current = None if current is not None and current.embedded else str(manager.currentCatalog().name())
        database = ".".join(str(namespace[i]) for i in range(len(namespace))) if namespace is not None else None
        protected = substitute(self.spark, sql, rows, catalogs, current_catalog=spark_current,
                               current_database=database or None)
        try:
            if self.guard is not None:
                scope = self.guard_scope(policy_views=True)
                self.guard.check_protected_reads(protected.sql, stmt, scope, frozenset(protected.views))
            self._check_hive_reads(protected, stmt, rows)
        except BaseException:
            drop_policy_views(self.spark, protected.views)
            raise
        return protected

    def _check_hive_reads(self, protected: ProtectedStatement, stmt: Statement, rows: RowPolicy) -> None:
        """A protected Hive table read outside its policy view (a metastore view over it) is refused, decided on
        Spark's analyzed plan; a statement Spark alone cannot analyze (it names embedded lake tables, which their
        connector replaces later) is refused instead when it reads the Hive catalog at all."""
        hive = self._state.hive
        if hive is None or not any(t[0] == hive for t in rows.tables):
            return
        current = self.binding(self.current_catalog)
        names = statement_refs(stmt).candidates
        lake = (current is not None and current.embedded) or any(
            (b := self.binding(n)) is not None and b.embedded for n in names)
        if not lake:
            hive_refusal(self.spark, protected.sql, rows, hive)
            return
        if self.guard is not None and self.guard.reads_catalog(
                protected.sql, self.guard_scope(policy_views=True), hive, frozenset(protected.views)):
            raise RowPolicyRefusal(f"a statement reading tables of Hive catalog '{hive}', some with a row filter or "
                                   "masks, and of a Delta, Iceberg or Paimon catalog is not allowed; read them in "
                                   "two statements (a temporary view of each)", statement=stmt.index)

    def _run_prepared(self, sql: str, stmt: Statement, bindings: list[Binding]) -> Any:  # noqa: ANN401
        """Run a checked statement: through the embedded connectors it involves (Paimon, Iceberg, Delta), else Spark."""
        delta = self._state.delta
        if delta is not None and delta.views is None:
            delta.views = view_store_of(self.store)  # materialized view definitions, when the store keeps them
        current = self.binding(self.current_catalog)

        def run(text: str) -> Any:  # noqa: ANN401 - Spark's DataFrame or None
            """The statement on Delta tables (embedded connector) or plain Spark."""
            involves_delta = any(b.embedded and b.type == "delta" for b in bindings)
            current_is_delta = current is not None and current.embedded and current.type == "delta"
            if delta is not None and (involves_delta or current_is_delta) and delta.handles(
                text, current_catalog=self.current_catalog, current_database=self.current_database
            ):
                return delta.execute(text, current_catalog=self.current_catalog, current_database=self.current_database)
            if view_statement_text(text) is not None:  # never Spark's own (pipeline) view commands: the guard saw it
                raise SparkRuntimeError("Materialized views live in this team's embedded Delta catalogs: name the "
                                        "view catalog.database.view with one of them.", statement=stmt.index)
            command = delta_command(text)
            if command is not None:  # never Spark's own reading of it (`DESCRIBE detail x` is a column): the guard
                # let it through as Delta's command
                raise SparkRuntimeError(f"{command.upper()} runs on the tables of this team's embedded Delta "
                                        "catalogs: name the table catalog.database.table with one of them.",
                                        statement=stmt.index)
            return self.spark.sql(text)

        def via_iceberg(text: str) -> Any:  # noqa: ANN401 - Spark's DataFrame or None
            """Iceberg tables become snapshot views first; what remains (Delta tables too) runs as any statement."""
            iceberg = self._state.iceberg
            involves_iceberg = any(b.embedded and b.type == "iceberg" for b in bindings)
            current_is_iceberg = current is not None and current.embedded and current.type == "iceberg"
            if iceberg is not None and (involves_iceberg or current_is_iceberg) and iceberg.handles(
                text, current_catalog=self.current_catalog, current_database=self.current_database
            ):
                iceberg.next_sql = run
                return iceberg.execute(text, current_catalog=self.current_catalog,
                                       current_database=self.current_database)
            return run(text)

        paimon = self._state.paimon
        involves_paimon = any(b.embedded and b.type == "paimon" for b in bindings)
        current_is_paimon = current is not None and current.embedded and current.type == "paimon"
        if paimon is not None and (involves_paimon or current_is_paimon) and paimon.handles(
            sql, current_catalog=self.current_catalog, current_database=self.current_database
        ):
            # Paimon tables become snapshot views first; the rest goes on through Iceberg, Delta or Spark
            paimon.next_sql = via_iceberg
            return paimon.execute(sql, current_catalog=self.current_catalog, current_database=self.current_database)
        return via_iceberg(sql)

    def _access_statement(self, stmt: Statement) -> Any:  # noqa: ANN401 - Spark's DataFrame or None
        """GRANT/REVOKE/SHOW GRANTS: the platform carries them out as the request's caller (docs/access.md)."""
        if self.guard is not None:
            self.guard.check(stmt.sql, stmt)  # a malformed statement is refused here, naming what is missing
        parsed = access_statement(stmt.sql)
        handler = getattr(self.store, "access_statement", None)
        if parsed is None or not callable(handler):
            raise SparkRuntimeError("GRANT, REVOKE and SHOW GRANTS run only in the platform's engines.",
                                    statement=stmt.index)
        try:
            rows = handler(parsed)
        except CatalogStoreError as exc:
            raise SparkRuntimeError(str(exc), statement=stmt.index) from None
        if parsed.verb != "show":
            return None
        columns = ["securable", "privilege", "principal_type", "principal", "granted_by"]
        schema = ", ".join(f"{c} string" for c in columns)
        return self.spark.createDataFrame([tuple(str(r.get(c) or "") for c in columns) for r in rows], schema)

    def _use_catalog(self, name: str, bindings: list[Binding]) -> Any:
        binding = next((b for b in bindings if b.name == name), None)
        if binding is None:  # a catalog Spark knows by itself (spark_catalog, user-configured)
            df = self.spark.sql(f"SET CATALOG {_literal(name)}")
            self.current_catalog, self.current_database = name, None
            return df
        database = binding_for(binding.type).default_database(binding.configuration)
        self.current_catalog, self.current_database = binding.name, database
        if binding.spark_name is None:
            return None  # embedded Delta/Iceberg: Spark has no catalog of that name; statements go to the connector
        df = self.spark.sql(f"SET CATALOG {_literal(binding.spark_name)}")
        if database:
            df = self.spark.sql(f"USE {_quote(binding.spark_name)}.{_quote(str(database))}")
        return df

    def _track_use(self, namespace: tuple[str, ...] | None, bindings: list[Binding]) -> Binding | None:
        """Follow `USE [cat.]db` in our own current catalog/database; returns the binding of the catalog it is in."""
        if namespace is None:
            return None
        by_name = {b.name: b for b in bindings}
        head = namespace[0].lower()
        binding: Binding | None
        if len(namespace) >= 2 and head in by_name:
            self.current_catalog, self.current_database = head, ".".join(namespace[1:])
            binding = by_name[head]
        else:
            self.current_database = ".".join(namespace)
            binding = self.binding(self.current_catalog)
        return binding

    # ---- failures ----------------------------------------------------------------------------------------
    def describe_failure(self, exc: BaseException, stmt: Statement) -> str:
        """A user-facing, redacted message for a failed statement, naming the catalog when one is at fault."""
        if isinstance(exc, SparkRuntimeError):
            return redact(exc.message)
        message = _exception_message(exc)
        if session_row_policy(self.spark).hidden:
            message = message.split("\n")[0].strip()  # what Spark prints below its first line is the plan, filters too
        found = _CATALOG_NOT_FOUND.search(message)
        if found:
            return UnknownCatalogError(found.group(1).lower(), self.team).message
        if _CONNECTION_FAILURE.search(message):
            culprits = self._unreachable(stmt)
            if culprits:
                names = ", ".join(f"'{n}' ({h}:{p})" for n, h, p in culprits)
                noun = "Catalog" if len(culprits) == 1 else "Catalogs"
                verb = "is" if len(culprits) == 1 else "are"
                return redact(f"{noun} {names} {verb} unreachable: {message}")
        return redact(message)

    def _unreachable(self, stmt: Statement) -> list[tuple[str, str, int]]:
        """JDBC catalogs of the statement whose server does not accept a TCP connection (all of them if none is down)."""
        names = statement_refs(stmt).candidates + ([self.current_catalog] if self.current_catalog else [])
        servers: list[tuple[str, str, int]] = []
        for name in dict.fromkeys(names):
            b = self.binding(name)
            endpoint = binding_for(b.type).endpoint(b.configuration) if b is not None else None
            if b is not None and endpoint is not None:
                servers.append((b.name, *endpoint))
        probed: list[tuple[str, str, int]] = []
        for name, host, port in servers:
            try:
                with socket.create_connection((host, port), timeout=min(self.connect_timeout, 3.0)):
                    pass
            except OSError:
                probed.append((name, host, port))
        return probed or servers


def _quote(name: str) -> str:
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return name
    return "`" + name.replace("`", "``") + "`"


def _literal(name: str) -> str:
    """A string literal: Spark 4 reads `SET CATALOG x` as an expression (x could be a variable)."""
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _exception_message(exc: BaseException) -> str:
    """Spark's message of an exception (PySpark's captured errors carry the JVM message)."""
    getter = getattr(exc, "getMessage", None)
    try:
        message = getter() if callable(getter) else str(exc)
    except Exception:  # noqa: BLE001 - a broken py4j link must not hide the original failure
        message = str(exc)
    message = (message or type(exc).__name__).strip()
    # the JVM stack trace PySpark appends adds nothing for a user and may be long
    return message.split("\n\nJVM stacktrace:")[0]




def referenced_catalogs(script: str) -> list[str]:
    """Names a script may use as catalogs, in order of appearance (static scan, no store)."""
    names: list[str] = []
    for stmt in split_statements(script):
        names += statement_refs(stmt).candidates
    return list(dict.fromkeys(names))


def _session_claims(script: str, store: CatalogStore, delta_mode: str,
                    types: frozenset[str] | None = None) -> list[tuple[CatalogEntry, dict[str, str]]]:
    """The script's catalogs (of `types`, or all) whose type needs static confs, with those confs."""
    claims: list[tuple[CatalogEntry, dict[str, str]]] = []
    for name in referenced_catalogs(script):
        entry = store.get_catalog(name)
        if entry is None or (types is not None and entry.type not in types):
            continue
        try:
            conf = binding_for(entry.type).static_conf(entry, delta_mode=delta_mode)
        except BindingFailure as exc:
            raise CatalogBindingError(f"Catalog '{entry.name}': {exc}") from None
        if conf:
            claims.append((entry, conf))
    return claims


def _merge_claims(claims: list[tuple[CatalogEntry, dict[str, str]]], team: str, delta_mode: str) -> dict[str, str]:
    """One session catalog per Spark session: the confs of the one claim, or an error naming the conflict."""
    if not claims:
        return {}
    first = claims[0][0]
    kind = binding_for(first.type)
    same = [e for e, _ in claims if e.type == first.type]
    others = [e for e, _ in claims if e.type != first.type]
    if others:
        other = others[0]
        raise CatalogBindingError(
            f"{kind.display_name} catalog '{first.name}' and {binding_for(other.type).display_name} catalog "
            f"'{other.name}' both need spark_catalog (static confs): use two jobs."
        )
    if len(same) > 1 and not kind.shares_session_catalog(delta_mode=delta_mode):
        names = ", ".join(f"'{e.name}'" for e in same)
        label = kind.display_name
        raise CatalogBindingError(
            f"The script uses {label} catalogs {names} of team '{team}', but a Spark session has one {label} catalog: "
            f"split the script into one job per {label} catalog."
        )
    return dict(claims[0][1])


def hive_static_conf(script: str, store: CatalogStore, team: str) -> dict[str, str]:
    """Static Spark confs the script's Hive catalog needs (empty without one), found before the session starts.

    Raises CatalogBindingError when the script uses two Hive catalogs (one per Spark session).
    """
    return _merge_claims(_session_claims(script, store, "embedded", frozenset({"hive"})), team, "embedded")


def static_conf(script: str, store: CatalogStore, team: str, *, delta_mode: str | None = None) -> dict[str, str]:
    """All static confs a session for this script needs: Hive support, and the JVM Delta catalog in jvm mode."""
    mode = delta_binding.delta_mode(delta_mode)
    return _merge_claims(_session_claims(script, store, mode), team, mode)


__all__ = [
    "Binding",
    "CatalogResolver",
    "StatementRefs",
    "hive_static_conf",
    "referenced_catalogs",
    "session_catalogs",
    "significant",
    "static_conf",
    "statement_refs",
]
