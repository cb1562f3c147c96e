"""The SQL guard: a team's SQL reaches only the tables of the catalogs bound for that team.

Every statement passes `SqlGuard.check()` before it runs (and in validate). The decision is made on Spark's own
parsed plan: the statement is parsed once, the plan is serialised with `toJSON()` (one JVM round trip, nested
plans of subqueries, CTEs, views and EXPLAIN included), and every node is checked by class name against the
rules below. Names of relations are checked against the catalogs the resolver bound for the team. What toJSON()
drops is read from the same plan over py4j: relation options (`t WITH (…)`, `INSERT INTO t WITH (…)`), table
properties and write options; no decision rests on a second reading of the SQL text. What Spark ships is switched
on first, as static conf of every engine (`ENGINE_STATIC_CONF`): restricted mode (reflect,
java_method, try_reflect and TRANSFORM … USING are refused at analysis) and no SQL on files.

Imports no Django: the engines and `spark-submit` drivers use it.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from py4j.java_gateway import JavaObject

from lakeport_engine.access import BROWSE, CREATE, MANAGE, MODIFY, SELECT, AccessPolicy, describe
from lakeport_engine.errors import SparkRuntimeError
from lakeport_engine.grants_sql import AccessStatementError, access_statement, is_access_statement
from lakeport_engine.matviews import view_statement_text
from lakeport_engine.row_policy import FILE_FUNCTIONS, METADATA_COLUMN, RowPolicy
from lakeport_engine.row_policy import RULE as ROW_POLICY_RULE
from lakeport_engine.sqltext import QUOTED, STRING, WORD, Statement, delta_command, significant, tokenize

# JAXP switches: no XML parser of the JVM opens an external DTD, schema or stylesheet (xpath_* fetched a DOCTYPE's
# SYSTEM URL; issue 28). Set at launch for the driver and executors, and again at run time by every SqlGuard.
XML_NO_EXTERNAL_ACCESS: dict[str, str] = {
    "javax.xml.accessExternalDTD": "", "javax.xml.accessExternalSchema": "", "javax.xml.accessExternalStylesheet": "",
}
_XML_JAVA_OPTIONS = " ".join(f"-D{key}=" for key in XML_NO_EXTERNAL_ACCESS)

# Static conf every engine starts with; a session cannot change static conf, so a script cannot undo it.
ENGINE_STATIC_CONF: dict[str, str] = {
    "spark.sql.restrictedMode.enabled": "true",  # reflect/java_method/try_reflect and TRANSFORM refused at analysis
    "spark.sql.runSQLOnFiles": "false",  # `format`.`path` names are not data sources (default of every session)
    "spark.ui.killEnabled": "false",  # nobody kills another run's stages from the UI
    "spark.sql.avro.schemaUrlAllowedSchemes": "lakeport-none",  # no avroSchemaUrl may be opened
    "spark.sql.legacy.hive.thriftServer.allowSettingSystemProperties": "false",
    "spark.sql.artifact.copyFromLocalToFs.allowDestLocal": "false",
    # Spark would replace `${env:X}`, `${system:x}` and `${<conf key>}` in the SQL text with the process's
    # environment, JVM properties and conf; `${name}` parameters are the platform's, substituted before Spark.
    "spark.sql.variable.substitute": "false",
    # defaultJavaOptions: the operator's extraJavaOptions are appended to these, not replaced
    "spark.driver.defaultJavaOptions": _XML_JAVA_OPTIONS,
    "spark.executor.defaultJavaOptions": _XML_JAVA_OPTIONS,
}

# A copy of config/settings/base.py LAKEPORT_SPARK_CONF_ALLOWLIST's default (this module imports no Django).
DEFAULT_CONF_ALLOWLIST: tuple[str, ...] = (
    "spark.sql.shuffle.partitions", "spark.sql.session.timeZone", "spark.sql.ansi.enabled",
    "spark.sql.adaptive.enabled", "spark.sql.adaptive.coalescePartitions.enabled",
    "spark.sql.autoBroadcastJoinThreshold", "spark.sql.files.maxPartitionBytes",
    "spark.sql.caseSensitive", "spark.sql.legacy.timeParserPolicy", "spark.sql.maxPlanStringLength",
)
# Conf a script may never set, whatever an operator allows.
NEVER_SET_PREFIXES: tuple[str, ...] = ("spark.sql.catalog.", "spark.sql.runSQLOnFiles", "spark.sql.restrictedMode",
                                       "spark.hadoop.", "spark.sql.extensions", "spark.sql.warehouse.dir",
                                       "spark.sql.variable.substitute")

SESSION_CATALOG = "spark_catalog"
GLOBAL_TEMP_DATABASE = "global_temp"
# Temp views the streaming runtime registers over stream tables (`__lp_stream_<n>`): only it may name them.
PLATFORM_VIEW_PREFIX = "__lp_"

# Rule name → what the user reads. docs/security.md lists the same names.
RULES: dict[str, str] = {
    "path-read": "reading files by path is not allowed; use a catalog",
    "table-function": "this table-valued function is not allowed; read tables of your catalogs",
    "inline-source": "tables, views and reads over an inline data source (USING … OPTIONS, WITH (…)) are not "
                     "allowed; use a catalog",
    "location": "LOCATION is not allowed; a catalog decides where its tables live",
    "write-directory": "INSERT OVERWRITE DIRECTORY is not allowed; write into a catalog table",
    "resource": "ADD/LIST JAR, FILE or ARCHIVE is not allowed",
    "create-function": "CREATE FUNCTION is not allowed; use built-in functions",
    "conf": "this Spark conf key may not be set or read from SQL; ask an operator to allow it",
    "conf-listing": "listing or resetting the whole Spark conf is not allowed; SET or RESET one allowed key",
    "dynamic-name": "IDENTIFIER() with an expression, and names that hide their parts, are not allowed; name the table",
    "unbound-catalog": "this catalog is not one of your team's catalogs",
    "session-catalog": "spark_catalog is not one of your team's catalogs (bind a Hive catalog to use it); "
                       "name a table of your catalogs",
    "global-state": "global temporary views are not allowed; use a temporary view",
    "cache": "CACHE, UNCACHE and CLEAR CACHE are not allowed",
    "reflection": "reflect, java_method and try_reflect are not allowed",
    "transform": "TRANSFORM … USING (running a script) is not allowed",
    "execute-immediate": "EXECUTE IMMEDIATE is not allowed; write the statement itself",
    "scripting": "SQL scripting blocks (BEGIN … END) are not allowed; write the statements one by one",
    "load-data": "LOAD DATA is not allowed; INSERT from a catalog table",
    "repair": "MSCK / REPAIR TABLE is not allowed",
    "custom-class": "custom SerDe or input/output format classes are not allowed",
    "reserved-name": "names starting with __lp_ belong to the platform (its stream views); read FROM STREAM(…) instead",
    "function-option": "this function option or argument is not allowed: pass the format's documented options as "
                       "map('key', 'value', …) (none that loads a file, a URL or a class)",
    "persistent-function": "functions from a metastore (persistent or with resources) are not allowed unless an "
                           "operator allow-lists them; use built-in functions",
    "table-properties": "TBLPROPERTIES on a JDBC catalog's table are not allowed (Spark appends them to the "
                        "database's own CREATE TABLE)",
    "access-statement": "this GRANT, REVOKE or SHOW GRANTS statement is not well formed",
    ROW_POLICY_RULE: "this statement cannot be run with a table's row filter or column masks in force",
    "access": "you do not hold the privilege this statement needs; ask a team admin or the securable's manager "
              "to grant it",
}

# Data source short names a `fmt`.`path` name would read with runSQLOnFiles.
FILE_FORMATS = frozenset({
    "text", "csv", "json", "parquet", "orc", "binaryfile", "delta", "avro", "jdbc", "xml", "libsvm", "hive",
    "image", "noop", "console", "rate", "socket", "kafka", "memory", "python", "state-metadata", "statestore",
})
# Providers a catalog's CREATE TABLE … USING may name (managed tables: the catalog chooses the location).
TABLE_PROVIDERS = frozenset({"parquet", "orc", "delta", "hive", "avro", "csv", "json", "text"})
REFLECTION_FUNCTIONS = frozenset({"reflect", "java_method", "try_reflect"})
# Table-valued functions that only compute (no reads); anything else, read_files above all, is refused.
TABLE_FUNCTIONS = frozenset({
    "range", "explode", "explode_outer", "inline", "inline_outer", "json_tuple", "posexplode",
    "posexplode_outer", "stack", "sql_keywords", "variant_explode", "variant_explode_outer", "collations",
})

# Node class (simple name) → rule, for nodes refused wherever they appear.
FORBIDDEN_NODES: dict[str, str] = {
    "InsertIntoDir": "write-directory",
    "InsertIntoDataSourceDirCommand": "write-directory",
    "InsertIntoHiveDirCommand": "write-directory",
    "AddJarsCommand": "resource", "AddFilesCommand": "resource", "AddArchivesCommand": "resource",
    "ListJarsCommand": "resource", "ListFilesCommand": "resource", "ListArchivesCommand": "resource",
    "CreateFunctionCommand": "create-function", "CreateFunction": "create-function",
    "CreateUserDefinedFunction": "create-function", "CreateSQLFunctionCommand": "create-function",
    "CreateTempViewUsing": "inline-source", "UnresolvedDataSource": "inline-source",
    "PlanWithUnresolvedIdentifier": "dynamic-name", "ExpressionWithUnresolvedIdentifier": "dynamic-name",
    "CacheTable": "cache", "CacheTableAsSelect": "cache", "UncacheTable": "cache", "ClearCacheCommand$": "cache",
    "ClearCacheCommand": "cache",
    "ScriptTransformation": "transform",
    "UnresolvedExecuteImmediate": "execute-immediate", "ExecuteImmediateQuery": "execute-immediate",
    "ExecuteImmediateCommand": "execute-immediate",
    "CompoundBody": "scripting", "SingleStatement": "scripting", "IfElseStatement": "scripting",
    "WhileStatement": "scripting", "RepeatStatement": "scripting", "LoopStatement": "scripting",
    "ForStatement": "scripting", "CaseStatement": "scripting",
    "LoadData": "load-data", "LoadDataCommand": "load-data",
    "RefreshResource": "path-read",
    "RepairTable": "repair", "RepairTableCommand": "repair",
    "SetTableLocation": "location", "SetNamespaceLocation": "location",
    "SetTableSerDeProperties": "custom-class",
}
# Nodes whose identifiers name relations (the name parts are in the JSON field given).
RELATION_NODES: dict[str, str] = {
    "UnresolvedRelation": "multipartIdentifier",
    "UnresolvedTable": "multipartIdentifier",
    "UnresolvedTableOrView": "multipartIdentifier",
    "UnresolvedView": "multipartIdentifier",
    "UnresolvedIdentifier": "nameParts",
}
# Nodes whose identifiers are not relations: session variables live in `system.session`.
VARIABLE_NODES = frozenset({"CreateVariable", "DropVariable", "SetVariable"})
TABLE_SPEC_ROOTS = frozenset({"CreateTable", "ReplaceTable", "CreateTableAsSelect", "ReplaceTableAsSelect"})
# Option Spark itself puts on the target relation of INSERT/UPDATE/DELETE/MERGE (the privileges a write needs).
WRITE_PRIVILEGES_OPTION = "__required_write_privileges__"
INTERNAL_RELATION_OPTIONS = frozenset({WRITE_PRIVILEGES_OPTION})
# Fine-grained access (docs/access.md): what a name in a statement of each root needs (a read of a relation needs
# SELECT, a write target MODIFY — and SELECT too unless it only inserts —, anything not listed here MANAGE).
BROWSE_ROOTS = frozenset({"DescribeRelation", "DescribeColumn", "ShowColumns", "ShowCreateTable",
                          "ShowTableProperties", "ShowPartitions", "ShowTablesExtended", "ShowTables", "ShowViews",
                          "ShowFunctions", "DescribeNamespace", "ShowNamespaces", "SetCatalogAndNamespace",
                          "ShowTablePartition", "ShowCatalogs"})
MODIFY_ROOTS = frozenset({"TruncateTable", "TruncatePartition"})
CREATE_ROOTS = frozenset({"CreateTable", "CreateTableAsSelect", "ReplaceTable", "ReplaceTableAsSelect", "CreateView",
                          "CreateNamespace", "CreateMetricViewCommand"})
WRAPPER_ROOTS = frozenset({"ExplainCommand", "DescribeQueryCommand"})  # judged by the statement they wrap
# Parsed roots that change the rows of their target, as a refusal names them.
_ROW_CHANGES = {"UpdateTable": "UPDATE", "DeleteFromTable": "DELETE", "MergeIntoTable": "MERGE INTO",
                "TruncateTable": "TRUNCATE", "TruncatePartition": "TRUNCATE"}
# Built-in functions with an options map: name → position of the options argument (from there on, every
# argument must be map('key', value, …) with literal keys).
OPTION_FUNCTIONS: dict[str, int] = {
    "from_json": 2, "from_csv": 2, "from_xml": 2, "from_avro": 2,
    "schema_of_json": 1, "schema_of_csv": 1, "schema_of_xml": 1, "schema_of_avro": 1,
    "to_json": 1, "to_csv": 1, "to_xml": 1,
}
# Protobuf functions read a descriptor file (a path) or load a generated Java class by name; only an inline binary
# descriptor set (a binary literal) is allowed, options after it.
PROTOBUF_FUNCTIONS = frozenset({"from_protobuf", "to_protobuf"})
# The option keys each function family accepts (Spark 4's documented data source options of the format, lower
# case), an allow-list: a key Spark may add later is refused until listed here, and none of these opens a path or
# URL (rowValidationXSDPath, avroSchemaUrl, descFilePath are left out on purpose).
_TEXT_OPTIONS = frozenset({
    "mode", "columnnameofcorruptrecord", "dateformat", "timestampformat", "timestampntzformat",
    "enabledatetimeparsingfallback", "locale", "timezone", "encoding", "charset", "linesep", "multiline",
    "samplingratio", "compression", "inferschema"})
FUNCTION_OPTION_KEYS: dict[str, frozenset[str]] = {
    "json": _TEXT_OPTIONS | {
        "primitivesasstring", "prefersdecimal", "allowcomments", "allowunquotedfieldnames", "allowsinglequotes",
        "allownumericleadingzeros", "allowbackslashescapinganycharacter", "allowunquotedcontrolchars",
        "allownonnumericnumbers", "dropfieldifallnull", "ignorenullfields", "pretty", "infertimestamp",
        "writenonasciicharacterascodepoint", "singlevariantcolumn"},
    "csv": _TEXT_OPTIONS | {
        "sep", "delimiter", "quote", "quoteall", "escape", "escapequotes", "comment", "header", "preferdate",
        "enforceschema", "ignoreleadingwhitespace", "ignoretrailingwhitespace", "nullvalue", "nanvalue",
        "positiveinf", "negativeinf", "maxcolumns", "maxcharspercolumn", "chartoescapequoteescaping", "emptyvalue",
        "unescapedquotehandling"},
    "xml": _TEXT_OPTIONS | {
        "rowtag", "roottag", "excludeattribute", "attributeprefix", "valuetag", "ignoresurroundingspaces",
        "ignorenamespace", "nullvalue", "wildcardcolname", "validatename", "arrayelementname", "declaration",
        "prefersdecimal"},
    "avro": frozenset({
        "mode", "datetimerebasemode", "avroschema", "positionalfieldmatching", "enablestableidentifiersforuniontype",
        "stableidentifierprefixforuniontype", "recursivefieldmaxdepth"}),
    "protobuf": frozenset({
        "mode", "recursive.fields.max.depth", "convert.any.fields.to.json", "emit.default.values", "enums.as.ints",
        "upcast.unsigned.ints", "unwrap.primitive.wrapper.types", "retain.empty.message.types"}),
}
BUILTIN_QUALIFIERS = (("builtin",), ("system", "builtin"))
# Plan nodes holding a plan in a field that is neither a child nor an inner child (INSERT's target, a view's body).
PLAN_FIELD_NODES = frozenset({"InsertIntoStatement", "CreateViewCommand", "CreateView", "AlterViewAs",
                              "CreateTempViewUsing", "CacheTableAsSelect", "ExplainCommand", "DescribeQueryCommand",
                              "CreateTableAsSelect", "ReplaceTableAsSelect", "InsertIntoDir", "WithCTE",
                              "CreateMetricViewCommand", "CreateVariable", "SetVariable",
                              "RelationTimeTravel"})  # a leaf holding the relation `VERSION AS OF` reads
LOGICAL_PLAN_CLASS = "org.apache.spark.sql.catalyst.plans.logical.LogicalPlan"
PARSE_CACHE_SIZE = 256


@dataclass(frozen=True)
class GuardPolicy:
    """What an operator decides for every team's SQL: the Spark conf keys a script may SET or RESET."""

    conf_allowlist: tuple[str, ...] = DEFAULT_CONF_ALLOWLIST
    # metastore (persistent) functions a script may call, by name as written (`fn` or `db.fn`), lowercased
    allowed_functions: tuple[str, ...] = ()

    def function_allowed(self, name: str) -> bool:
        """True if an operator allow-listed the metastore function `name` (`fn` or `db.fn`, any case)."""
        return name.lower() in {f.lower() for f in self.allowed_functions}

    def conf_allowed(self, key: str) -> bool:
        """True if a script may SET/RESET `key` (never a catalog, Hadoop or guard switch)."""
        if any(key.lower().startswith(prefix.lower()) for prefix in NEVER_SET_PREFIXES):
            return False
        return key in self.conf_allowlist


@dataclass
class GuardScope:
    """What the resolver knows when a statement runs: the team's bound catalogs and the current catalog.

    `catalogs` are the Spark catalog names of bound JDBC catalogs; `embedded` the embedded Delta catalogs'
    names (the connector rewrites their tables onto its own snapshot views); `session_catalog_bound` is true when
    the team bound a Hive catalog (or JVM Delta) as spark_catalog. `current_catalog()` asks Spark (lazily);
    `temp_views` are names a script made earlier that do not exist yet (validate analyses without running).
    """

    catalogs: frozenset[str]
    embedded: frozenset[str]
    session_catalog_bound: bool
    current_catalog: Callable[[], str]
    current_is_embedded: bool = False
    is_temp_view: Callable[[str], bool] = lambda name: False
    temp_views: frozenset[str] = field(default_factory=frozenset)
    # binds a team catalog the statement names where the resolver cannot see it (IDENTIFIER('cat.db.t'))
    bind: Callable[[str], bool] = lambda name: False
    # stream views the streaming runtime put in place of STREAM(…) in this very statement
    platform_views: frozenset[str] = field(default_factory=frozenset)
    # fine-grained access (docs/access.md): the caller's privileges (None: role defaults), the team catalog of each
    # Spark catalog name, and the current (team catalog, database) unqualified names resolve in
    access: AccessPolicy | None = None
    aliases: dict[str, str] = field(default_factory=dict)
    current_names: Callable[[], tuple[str | None, str | None]] = lambda: (None, None)
    # the request's row filters and column masks (docs/access.md): what cannot keep them is refused; `spark_read`:
    # the team's JDBC and Hive catalogs (team names), whose protected tables the resolver reads through policy views
    rows: RowPolicy | None = None
    spark_read: frozenset[str] = field(default_factory=frozenset)


class GuardRefusal(SparkRuntimeError):
    """A statement the guard refuses: the message names the statement, its line and the rule."""

    def __init__(self, rule: str, *, detail: str | None = None, statement: int | None = None,
                 line: int | None = None) -> None:
        text = RULES[rule] + (f" ({detail})" if detail else "")
        where = f"Statement {statement + 1}, line {line}: " if statement is not None and line is not None else ""
        super().__init__(f"{where}{text} (rule: {rule})", statement=statement)
        self.rule = rule
        self.line = line


class _Refuse(Exception):
    """Internal: a rule fired while walking the plan."""

    def __init__(self, rule: str, detail: str | None = None) -> None:
        super().__init__(rule)
        self.rule = rule
        self.detail = detail


@dataclass(frozen=True)
class _Parsed:
    root: str  # simple class name of the root plan node
    nodes: list[dict[str, Any]]


class SqlGuard:
    """Checks statements on one Spark session against a `GuardPolicy` (parsed plans cached by text)."""

    def __init__(self, spark: Any, policy: GuardPolicy | None = None) -> None:
        self.spark = spark
        self.policy = policy or GuardPolicy()
        self._cache: OrderedDict[str, _Parsed] = OrderedDict()
        self._lock = threading.Lock()
        self._builtin_names: frozenset[str] | None = None
        _close_xml_external_access(spark)

    # ---- public ---------------------------------------------------------------------------------------
    def check(self, sql: str, stmt: Statement, scope: GuardScope | None = None) -> None:  # noqa: C901
        """Raise GuardRefusal if `sql` (the statement as it will run) breaks a rule.

        Without `scope` only the rules that need no catalog knowledge apply (a whole script is checked that
        way before its first statement runs); with it, every relation name must lie in a bound catalog.
        """
        try:
            self._check_names_text(sql)
            if is_access_statement(sql):
                try:  # the platform carries it out and decides who may (docs/access.md); only its shape here
                    access_statement(sql)
                except AccessStatementError as exc:
                    raise _Refuse("access-statement", str(exc)) from None
                return None
            if delta_command(sql) is not None:
                # OPTIMIZE/VACUUM/RESTORE/DESCRIBE DETAIL: a table name only, which the Delta connector reads
                return self._check_access_text(sql, scope)
            view = view_statement_text(sql)  # Spark has no grammar for it: the view's query is what runs
            if view is not None:
                self._check_access_text(sql, scope)  # the view itself: MANAGE on its catalog when governed
                if view.query is None:
                    return None  # REFRESH/DROP/SHOW/…: names only, of the team's Delta catalogs (the connector's)
                sql = view.query
                if scope is not None:  # the Delta connector computes it: no policy views for JDBC or Hive reads
                    scope = replace(scope, spark_read=frozenset())
            parsed = self._parse(sql)
            self._check_root(sql, parsed)
            self._check_nodes(parsed.nodes, scope)
            self._check_hidden(parsed, scope)
            self._check_access(parsed, scope)
            self._check_rows(parsed, scope)
        except _Refuse as refusal:
            raise GuardRefusal(refusal.rule, detail=refusal.detail, statement=stmt.index, line=stmt.line) from None
        return None

    @staticmethod
    def refusal_for_error(exc: BaseException, stmt: Statement) -> GuardRefusal | None:
        """Spark's own refusal (restricted mode at analysis) as the guard's message; None for other errors."""
        message = str(exc)
        if "SQL_RESTRICTED_MODE" not in message:
            return None
        rule = "transform" if "TRANSFORM" in message else "reflection"
        return GuardRefusal(rule, statement=stmt.index, line=stmt.line)

    # ---- parsing --------------------------------------------------------------------------------------
    def _parse(self, sql: str) -> _Parsed:
        with self._lock:
            cached = self._cache.get(sql)
            if cached is not None:
                self._cache.move_to_end(sql)
                return cached
        plan = self.spark._jsparkSession.sessionState().sqlParser().parsePlan(sql)
        tree = json.loads(plan.toJSON())
        nodes = list(_nodes(tree))
        parsed = _Parsed(_simple(nodes[0]["class"]) if nodes else "", nodes)
        self._root_details(plan, parsed)
        if nodes:
            relations = sum(1 for n in nodes if _simple(n["class"]) == "UnresolvedRelation")
            system = self.spark.sparkContext._jvm.java.lang.System
            options, writes = _relation_options(plan, relations, system) if relations else ([], [])
            nodes[0]["_relation_options"] = options
            nodes[0]["_write_targets"] = writes
            nodes[0]["_calls"] = list(_calls(tree))
            if parsed.root in TABLE_SPEC_ROOTS and len(tree) > 1:
                nodes[0]["_target"] = _parts(tree[1].get("nameParts"))  # child 0, right after the root
        with self._lock:
            self._cache[sql] = parsed
            while len(self._cache) > PARSE_CACHE_SIZE:
                self._cache.popitem(last=False)
        return parsed

    def _root_details(self, plan: Any, parsed: _Parsed) -> None:
        """Fields toJSON() drops (Scala maps, options), read over py4j for the root commands that have them."""
        root = parsed.nodes[0] if parsed.nodes else {}
        if parsed.root == "SetCommand":
            kv = plan.kv()
            root["_kv"] = None if kv.isEmpty() else str(kv.get()._1())
        elif parsed.root == "ResetCommand":
            config = plan.config()
            root["_kv"] = None if config.isEmpty() else str(config.get())
        elif parsed.root in ("CreateNamespace", "SetNamespaceProperties"):
            root["_location"] = bool(plan.properties().contains("location"))
        elif parsed.root in TABLE_SPEC_ROOTS:
            spec = plan.tableSpec()
            serde = spec.serde()
            if not serde.isEmpty():
                info = serde.get()
                root["_custom_class"] = not (info.serde().isEmpty() and info.formatClasses().isEmpty())
            root["_properties"] = not spec.properties().isEmpty()
            if parsed.root.endswith("AsSelect"):
                root["_write_options"] = sorted(_scala_keys(plan.writeOptions()))

    # ---- rules ----------------------------------------------------------------------------------------
    @staticmethod
    def _check_names_text(sql: str) -> None:
        """Names toJSON() would print ambiguously (it joins name parts with ", "): refused before parsing."""
        tokens = significant(tokenize(sql))
        for k, tok in enumerate(tokens):
            nxt = tokens[k + 1] if k + 1 < len(tokens) else None
            if tok.kind == QUOTED and "," in tok.name:
                raise _Refuse("dynamic-name", "a name part with ','")
            if tok.kind == WORD and tok.lower == "identifier" and nxt is not None and nxt.text == "(":
                arg = tokens[k + 2] if k + 2 < len(tokens) else None
                if arg is not None and arg.kind == STRING and ("`" in arg.text or "\\" in arg.text or "," in arg.text):
                    raise _Refuse("dynamic-name", "a quoted or escaped name inside IDENTIFIER()")

    def _check_hidden(self, parsed: _Parsed, scope: GuardScope | None) -> None:
        """What toJSON() drops or only shows flat: relation and write options, function calls, table properties."""
        if not parsed.nodes:
            return
        root = parsed.nodes[0]
        # Options on a relation override the catalog's own (a JDBC table's url, user, sessionInitStatement, …).
        keys = root.get("_relation_options") or []
        if keys:
            raise _Refuse("inline-source", "options on a table reference: " + ", ".join(repr(k) for k in keys))
        if root.get("_write_options"):
            raise _Refuse("inline-source", "write options")
        for call in root.get("_calls") or []:
            self._check_call(call)
        if root.get("_properties") and scope is not None and self._jdbc_target(root, scope):
            raise _Refuse("table-properties")

    # ---- fine-grained access (docs/access.md) ------------------------------------------------------------
    def _check_access(self, parsed: _Parsed, scope: GuardScope | None) -> None:
        """Every relation, write target and namespace the statement names needs a privilege of the caller.

        Decided on the parsed plan, whose names are the user's own (the embedded connectors later put snapshot views
        in their place), with unqualified names resolved in the current catalog and database. CTE names and this
        session's temp views are skipped: their bodies were checked when written, in this request, for this caller.
        """
        if scope is None or scope.access is None or scope.access.unrestricted or not parsed.nodes:
            return
        root = parsed.nodes[0]
        ctes = {str(rel["_1"]).lower() for n in parsed.nodes if _simple(n["class"]) == "UnresolvedWith"
                for rel in n.get("cteRelations") or [] if isinstance(rel, dict) and "_1" in rel}
        statement = next((_simple(n["class"]) for n in parsed.nodes if _simple(n["class"]) not in WRAPPER_ROOTS),
                         parsed.root)
        writes: dict[tuple[str, ...], list[str]] = {}
        for parts, privileges in root.get("_write_targets") or []:
            writes.setdefault(tuple(p.lower() for p in parts), []).append(privileges)
        needs: list[tuple[str, tuple[str, ...]]] = []
        variables = any(_simple(n["class"]) in VARIABLE_NODES for n in parsed.nodes)
        for node in parsed.nodes:
            name = _simple(node["class"])
            if name == "UnresolvedNamespace":
                target = self._namespace_target(_parts(node.get("multipartIdentifier")), scope)
                if statement == "CreateNamespace":
                    needs.append((CREATE, target[:1]))
                elif statement in BROWSE_ROOTS:
                    needs.append((BROWSE, target))
                else:
                    needs.append((MANAGE, target))
                continue
            if name not in RELATION_NODES or (variables and name == "UnresolvedIdentifier"):
                continue
            parts = _parts(node.get(RELATION_NODES[name]))
            if not parts or (len(parts) == 1 and (parts[0].lower() in ctes or self._temp_view(parts[0], scope))):
                continue
            if len(parts) == 1 and parts[0] in scope.platform_views:
                continue
            target = self._relation_target(parts, scope)
            if name == "UnresolvedRelation":
                pending = writes.get(tuple(p.lower() for p in parts))
                if pending:
                    privileges = pending.pop(0)
                    needs.append((MODIFY, target))
                    if set(privileges.replace(" ", "").split(",")) - {"INSERT"}:
                        needs.append((SELECT, target))  # UPDATE/DELETE/MERGE read the rows they change
                else:
                    needs.append((SELECT, target))
            elif statement in BROWSE_ROOTS:
                needs.append((BROWSE, target))
            elif statement in MODIFY_ROOTS:
                needs.append((MODIFY, target))
            elif statement in CREATE_ROOTS and statement != "CreateNamespace":
                needs.append((CREATE, target[:2]))  # a table or view is created in a schema
                if statement.startswith("Replace"):
                    needs.append((MODIFY, target))
            else:
                needs.append((MANAGE, target))  # DROP, ALTER, RENAME, COMMENT ON, …
        for privilege, target in needs:
            if not scope.access.allows(privilege, target):
                raise _Refuse("access", f"{privilege} on {describe(target)}")

    def _check_rows(self, parsed: _Parsed, scope: GuardScope | None) -> None:
        """What a row filter or column mask cannot be kept for, refused by name (docs/access.md): a read of a
        protected table outside the catalogs whose reads get the policy (lake snapshot views, JDBC and Hive policy
        views), a change of a protected JDBC or Hive table's rows (UPDATE, DELETE, MERGE, INSERT OVERWRITE,
        TRUNCATE; the lake connectors refuse their own), EXPLAIN (its plan prints the expressions) unless the caller
        may see them, and where a row came from (`input_file_name()`, `_metadata`). A temp view counts as protected:
        it may read a protected table."""
        if scope is None or not scope.rows or not parsed.nodes:
            return
        ctes = {str(rel["_1"]).lower() for n in parsed.nodes if _simple(n["class"]) == "UnresolvedWith"
                for rel in n.get("cteRelations") or [] if isinstance(rel, dict) and "_1" in rel}
        protected: list[str] = []
        hidden = False
        statement = next((_simple(n["class"]) for n in parsed.nodes if _simple(n["class"]) not in WRAPPER_ROOTS),
                         parsed.root)
        writes: dict[tuple[str, ...], list[str]] = {}
        for parts, privileges in parsed.nodes[0].get("_write_targets") or []:
            writes.setdefault(tuple(p.lower() for p in parts), []).append(privileges)
        for node in parsed.nodes:
            named = _parts(node.get(RELATION_NODES.get(_simple(node["class"]), ""))) if statement in MODIFY_ROOTS else []
            if named:
                target = self._relation_target(named, scope)
                policy = scope.rows.get(target)
                if policy is not None and target[0] not in scope.embedded:  # the lake connectors refuse their own
                    raise _Refuse(ROW_POLICY_RULE, f"TRUNCATE of table '{policy.name}'")
            if _simple(node["class"]) != "UnresolvedRelation":
                continue
            parts = _parts(node.get("multipartIdentifier"))
            if not parts or (len(parts) == 1 and parts[0].lower() in ctes):
                continue
            if len(parts) == 1 and (parts[0] in scope.platform_views or self._temp_view(parts[0], scope)):
                protected.append(f"temporary view '{parts[0]}'")
                hidden = hidden or scope.rows.hidden
                continue
            target = self._relation_target(parts, scope)
            policy = scope.rows.get(target)
            if policy is None:
                continue
            if target[0] not in scope.embedded:
                if target[0] not in scope.spark_read:
                    raise _Refuse(ROW_POLICY_RULE, f"table '{policy.name}' is read where its row filter and masks "
                                                   "cannot be applied (a JDBC or Hive table read by a streaming "
                                                   "query or a materialized view, or a catalog type without them)")
                privileges = writes.get(tuple(p.lower() for p in parts))
                if privileges:  # a write target; the lake connectors refuse these for their own tables
                    written = set(privileges.pop(0).replace(" ", "").split(","))
                    if written - {"INSERT"}:
                        verb = "INSERT OVERWRITE" if statement == "InsertIntoStatement" else \
                            _ROW_CHANGES.get(statement, statement)
                        raise _Refuse(ROW_POLICY_RULE, f"{verb} of table '{policy.name}'")
                    continue  # INSERT INTO adds rows: nothing of the table is read
            protected.append(f"table '{policy.name}'")
            hidden = hidden or not policy.visible
        if not protected:
            return
        if hidden and any(_simple(n["class"]) == "ExplainCommand" for n in parsed.nodes):
            raise _Refuse(ROW_POLICY_RULE, f"EXPLAIN of a statement reading {protected[0]}")
        for node in parsed.nodes:
            name = _simple(node["class"])
            if name == "UnresolvedFunction":
                parts = [p.lower() for p in _parts(node.get("nameParts"))]
                if parts and parts[-1] in FILE_FUNCTIONS:
                    raise _Refuse(ROW_POLICY_RULE, f"{parts[-1]}() in a statement reading {protected[0]}")
            elif name in ("UnresolvedAttribute", "UnresolvedStar", "UnresolvedRegex"):
                parts = [p.lower() for p in _parts(node.get("nameParts") or node.get("target"))]
                if METADATA_COLUMN in parts:
                    raise _Refuse(ROW_POLICY_RULE, f"{METADATA_COLUMN} in a statement reading {protected[0]}")

    def check_protected_reads(self, sql: str, stmt: Statement, scope: GuardScope, views: frozenset[str]) -> None:
        """After the resolver rewrote `sql` onto policy views (`views`, lakeport_engine/protected_reads.py): refuse it
        when Spark's parser still finds a protected table of a JDBC or Hive catalog read in it (a name the rewrite
        did not see), so such a read never runs without its filter and masks."""
        rows = scope.rows
        if not rows or not any(t[0] in scope.spark_read for t in rows.tables):
            return
        try:
            parsed = self._parse(sql)
            ctes = {str(rel["_1"]).lower() for n in parsed.nodes if _simple(n["class"]) == "UnresolvedWith"
                    for rel in n.get("cteRelations") or [] if isinstance(rel, dict) and "_1" in rel}
            inserts = {tuple(p.lower() for p in parts) for parts, privileges in
                       (parsed.nodes[0].get("_write_targets") or [] if parsed.nodes else [])
                       if privileges.replace(" ", "") == "INSERT"}
            for node in parsed.nodes:
                name = _simple(node["class"])
                if name not in ("UnresolvedRelation", "UnresolvedIdentifier"):
                    continue
                parts = _parts(node.get(RELATION_NODES[name]))
                if not parts or tuple(p.lower() for p in parts) in inserts:
                    continue
                if len(parts) == 1 and (parts[0] in views or parts[0].lower() in ctes or self._temp_view(
                        parts[0], scope)):
                    continue
                target = self._relation_target(parts, scope)
                policy = rows.get(target)
                if policy is not None and target[0] in scope.spark_read:
                    raise _Refuse(ROW_POLICY_RULE, f"a read of table '{policy.name}' that its row filter and masks "
                                                   "could not be put under")
        except _Refuse as refusal:
            raise GuardRefusal(refusal.rule, detail=refusal.detail, statement=stmt.index, line=stmt.line) from None

    def reads_catalog(self, sql: str, scope: GuardScope, catalog: str, views: frozenset[str]) -> bool:
        """True when `sql` names a relation of team catalog `catalog` (CTEs, temp views and `views` are not)."""
        parsed = self._parse(sql)
        ctes = {str(rel["_1"]).lower() for n in parsed.nodes if _simple(n["class"]) == "UnresolvedWith"
                for rel in n.get("cteRelations") or [] if isinstance(rel, dict) and "_1" in rel}
        for node in parsed.nodes:
            name = _simple(node["class"])
            parts = _parts(node.get(RELATION_NODES[name])) if name in RELATION_NODES else []
            if not parts or (len(parts) == 1 and (parts[0] in views or parts[0].lower() in ctes
                                                  or self._temp_view(parts[0], scope))):
                continue
            if self._relation_target(parts, scope)[0] == catalog:
                return True
        return False

    def _check_access_text(self, sql: str, scope: GuardScope | None) -> None:
        """Statements Spark cannot parse (Delta's OPTIMIZE/VACUUM/RESTORE/DESCRIBE DETAIL, materialized views): in
        a governed catalog they need MANAGE on the catalog they name (or the current one, for unqualified names)."""
        if scope is None or scope.access is None or scope.access.unrestricted:
            return
        names = {t.name.lower() for t in significant(tokenize(sql)) if t.kind in (WORD, QUOTED)}
        catalogs = {team for spark, team in scope.aliases.items() if spark.lower() in names or team in names}
        catalogs |= {c for c in scope.access.governed if c in names}
        current, _ = scope.current_names()
        if not catalogs and current:
            catalogs = {current}
        for catalog in sorted(catalogs):
            if not scope.access.allows(MANAGE, (catalog,)):
                raise _Refuse("access", f"{MANAGE} on {describe((catalog,))}")

    @staticmethod
    def _team_catalog(name: str, scope: GuardScope) -> str:
        return scope.aliases.get(name, scope.aliases.get(name.lower(), name.lower()))

    def _relation_target(self, parts: list[str], scope: GuardScope) -> tuple[str, ...]:
        """`(catalog, database, table)` of a relation name as the user wrote it (team catalog names)."""
        head = parts[0]
        if len(parts) == 4 and head.lower() in scope.embedded:
            # an Iceberg metadata table (`cat.ns.t.snapshots`) is read with the privileges of its table
            return (self._team_catalog(head, scope), parts[1].lower(), parts[2].lower())
        qualified = len(parts) >= 3 or (len(parts) == 2 and (
            head in scope.catalogs or head.lower() in scope.embedded or head.lower() == SESSION_CATALOG))
        if qualified:
            return (self._team_catalog(head, scope), ".".join(parts[1:-1]).lower(), parts[-1].lower())
        current, database = scope.current_names()
        catalog = current or self._team_catalog(scope.current_catalog(), scope)
        if len(parts) == 2:
            return (catalog, parts[0].lower(), parts[1].lower())
        return (catalog, (database or "").lower(), parts[0].lower())

    def _namespace_target(self, parts: list[str], scope: GuardScope) -> tuple[str, ...]:
        """`(catalog, database)` (or `(catalog,)`) of a namespace name."""
        current, database = scope.current_names()
        catalog = current or self._team_catalog(scope.current_catalog(), scope)
        if not parts:
            return (catalog, database.lower()) if database else (catalog,)
        head = parts[0]
        if head in scope.catalogs or head.lower() in scope.embedded or head.lower() == SESSION_CATALOG:
            rest = ".".join(parts[1:]).lower()
            return (self._team_catalog(head, scope), rest) if rest else (self._team_catalog(head, scope),)
        return (catalog, ".".join(parts).lower())

    def _check_root(self, sql: str, parsed: _Parsed) -> None:
        if not parsed.nodes:
            return
        root = parsed.nodes[0]
        if parsed.root in ("SetCommand", "ResetCommand"):
            key = root.get("_kv")
            if key is None or key.startswith("-"):
                raise _Refuse("conf-listing")
            if not self.policy.conf_allowed(key):
                raise _Refuse("conf", f"'{key}'")
        if root.get("_location"):
            raise _Refuse("location")
        if root.get("_custom_class"):
            raise _Refuse("custom-class")

    def _check_nodes(self, nodes: list[dict[str, Any]], scope: GuardScope | None) -> None:
        ctes = {str(rel["_1"]).lower() for n in nodes if _simple(n["class"]) == "UnresolvedWith"
                for rel in n.get("cteRelations") or [] if isinstance(rel, dict) and "_1" in rel}
        variables = any(_simple(n["class"]) in VARIABLE_NODES for n in nodes)
        for node in nodes:
            name = _simple(node["class"])
            rule = FORBIDDEN_NODES.get(name)
            if rule is not None:
                raise _Refuse(rule)
            if node.get("location"):
                raise _Refuse("location")
            if name == "UnresolvedTableSpec":
                self._check_table_spec(node)
            elif name == "OptionList" and node.get("options"):
                raise _Refuse("inline-source", "OPTIONS on a table")
            elif name == "CreateViewCommand" and str((node.get("viewType") or {}).get("object", "")).endswith(
                    "GlobalTempView$"):
                raise _Refuse("global-state")
            elif name == "UnresolvedFunction":
                parts = _parts(node.get("nameParts"))
                if parts and parts[-1].lower() in REFLECTION_FUNCTIONS:
                    raise _Refuse("reflection")
            elif name == "UnresolvedTableValuedFunction":
                parts = _parts(node.get("name"))
                fn = parts[-1].lower() if parts else ""
                if fn == "read_files":
                    raise _Refuse("path-read")
                if fn not in TABLE_FUNCTIONS:
                    raise _Refuse("table-function", f"'{fn}'")
            elif name in RELATION_NODES and not (variables and name == "UnresolvedIdentifier"):
                parts = _parts(node.get(RELATION_NODES[name]))
                allow_temp = name in ("UnresolvedRelation", "UnresolvedTableOrView", "UnresolvedView") or bool(
                    node.get("allowTemp"))
                self._check_name(parts, scope, ctes if name == "UnresolvedRelation" else set(), allow_temp)
            elif name == "UnresolvedNamespace" and scope is not None:
                self._check_namespace(_parts(node.get("multipartIdentifier")), scope)

    def _check_call(self, call: _Expr) -> None:
        """A function call: built-in or allow-listed by the operator, its options without paths or URLs."""
        parts = [p.lower() for p in _parts(call.node.get("nameParts"))]
        if not parts or call.node.get("isInternal"):
            return
        name = parts[-1]
        if not ((len(parts) == 1 or tuple(parts[:-1]) in BUILTIN_QUALIFIERS) and name in self._builtins()):
            if not self.policy.function_allowed(".".join(parts)):
                raise _Refuse("persistent-function", f"'{'.'.join(parts)}'")
            return
        args = call.arguments()
        if name in PROTOBUF_FUNCTIONS:
            descriptor = args[2] if len(args) > 2 else None
            if descriptor is None or not descriptor.is_literal("binary"):
                raise _Refuse("function-option", f"{name} takes only an inline binary descriptor set")
            self._check_options(name, args[3:])
        elif name in OPTION_FUNCTIONS:
            self._check_options(name, args[OPTION_FUNCTIONS[name]:])
        for arg in args:  # options=> map(…) by name
            if _simple(arg.node["class"]) == "NamedArgumentExpression" and name in OPTION_FUNCTIONS:
                self._check_options(name, arg.children)

    @staticmethod
    def _check_options(function: str, args: list[_Expr]) -> None:
        """Every options argument is map('key', value, …) with literal keys, none of them opening a path or URL."""
        for arg in args:
            if _simple(arg.node["class"]) == "NamedArgumentExpression":
                continue  # checked by its own name above
            map_args = arg.arguments() if _simple(arg.node["class"]) == "UnresolvedFunction" and [
                p.lower() for p in _parts(arg.node.get("nameParts"))] == ["map"] else None
            if map_args is None:
                raise _Refuse("function-option", f"{function} options must be written as map('key', 'value', …)")
            for key in map_args[0::2]:
                if not key.is_literal("string"):
                    raise _Refuse("function-option", f"{function} option keys must be string literals")
                lowered = str(key.node.get("value")).strip().lower()
                if lowered not in FUNCTION_OPTION_KEYS[function.rsplit("_", 1)[-1]]:
                    raise _Refuse("function-option", f"{function} option '{key.node.get('value')}' (not one of the "
                                  "format's documented options)")

    def _builtins(self) -> frozenset[str]:
        """Names of the session's built-in functions (one JVM call per guard; scripts cannot register any)."""
        if self._builtin_names is None:
            registry = self.spark._jsparkSession.sessionState().functionRegistry()
            names = str(registry.listFunction().mkString("\u0001")).split("\u0001")
            # printed as `system.builtin.<name>`; a temporary function (none: scripts cannot create one) unqualified
            self._builtin_names = frozenset(n.strip("`").lower().removeprefix("system.builtin.") for n in names if n)
        return self._builtin_names

    @staticmethod
    def _jdbc_target(root: dict[str, Any], scope: GuardScope) -> bool:
        """True unless the table a CREATE/REPLACE TABLE makes lives in a Delta or the Hive session catalog."""
        parts = root.get("_target") or []
        head = parts[0] if parts else ""
        if len(parts) >= 2 and head in scope.catalogs:
            return True
        if len(parts) >= 2 and (head.lower() in scope.embedded or head.lower() == SESSION_CATALOG):
            return False
        if len(parts) >= 3:
            return True  # an unbound catalog: refused by its own rule, and never with properties
        return not scope.current_is_embedded and scope.current_catalog() in scope.catalogs

    @staticmethod
    def _check_table_spec(spec: dict[str, Any]) -> None:
        provider = spec.get("provider")
        if provider is not None and str(provider).lower() not in TABLE_PROVIDERS:
            raise _Refuse("inline-source", f"USING {provider}")
        if spec.get("external"):
            raise _Refuse("location")

    def _check_name(self, parts: list[str], scope: GuardScope | None, ctes: set[str], allow_temp: bool) -> None:
        if not parts:
            return
        head = parts[0]
        if any(p.lower().startswith(PLATFORM_VIEW_PREFIX) for p in parts):
            if len(parts) == 1 and scope is not None and head in scope.platform_views:
                return
            raise _Refuse("reserved-name", f"'{'.'.join(parts)}'")
        looks_like_path = head.lower() in FILE_FORMATS or "/" in parts[1 % len(parts)] or "." in head
        if len(parts) == 2 and looks_like_path and (scope is None or head not in scope.catalogs):
            raise _Refuse("path-read")  # `format`.`path`, also with a data source class name
        if len(parts) >= 2 and head.lower() == GLOBAL_TEMP_DATABASE:
            raise _Refuse("global-state")
        if scope is None:
            return
        if len(parts) >= 2 and (head in scope.catalogs or head.lower() in scope.embedded):
            return
        if len(parts) >= 2 and head.lower() == SESSION_CATALOG:
            if not scope.session_catalog_bound:
                raise _Refuse("session-catalog")
            return
        if len(parts) >= 3:
            if scope.bind(head):
                return
            raise _Refuse("unbound-catalog", f"'{head}'")
        if len(parts) == 1 and (head.lower() in ctes or (allow_temp and self._temp_view(head, scope))):
            return
        self._check_current(scope, ".".join(parts))

    def _check_namespace(self, parts: list[str], scope: GuardScope) -> None:
        if not parts:
            return self._check_current(scope)
        head = parts[0]
        if head in scope.catalogs or head.lower() in scope.embedded:
            return None
        if head.lower() == SESSION_CATALOG:
            if not scope.session_catalog_bound:
                raise _Refuse("session-catalog")
            return None
        return self._check_current(scope)

    @staticmethod
    def _temp_view(name: str, scope: GuardScope) -> bool:
        return name.lower() in scope.temp_views or scope.is_temp_view(name)

    @staticmethod
    def _check_current(scope: GuardScope, name: str | None = None) -> None:
        """An unqualified name lives in the current catalog: it must be the team's (`name` goes in the message)."""
        if scope.current_is_embedded:
            return
        current = scope.current_catalog()
        if current in scope.catalogs:
            return
        if current.lower() == SESSION_CATALOG:
            if scope.session_catalog_bound:
                return
            raise _Refuse("session-catalog", f"'{name}' is not a temporary view of this run" if name else None)
        raise _Refuse("unbound-catalog", f"'{current}'")


def _close_xml_external_access(spark: Any) -> None:
    """Set the JAXP switches in this driver's JVM (local executors included), once per SparkContext."""
    sc = spark.sparkContext
    if getattr(sc, "_lakeport_xml_closed", False):
        return
    for key, value in XML_NO_EXTERNAL_ACCESS.items():
        sc._jvm.java.lang.System.setProperty(key, value)
    sc._lakeport_xml_closed = True


def _simple(class_name: str) -> str:
    return class_name.rsplit(".", 1)[-1]


def _parts(value: Any) -> list[str]:
    """Name parts from toJSON()'s "[a, b, c]" (a part holding ", " is refused before this runs)."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    text = str(value)
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return text.split(", ") if text else []


@dataclass
class _Expr:
    """One node of toJSON()'s output rebuilt as a tree (toJSON() lists a tree's nodes in pre-order)."""

    node: dict[str, Any]
    children: list[_Expr]

    def arguments(self) -> list[_Expr]:
        """A function call's arguments (its `arguments` field holds child indices)."""
        indices = self.node.get("arguments")
        if not isinstance(indices, list):
            return list(self.children)
        return [self.children[i] for i in indices if isinstance(i, int) and i < len(self.children)]

    def is_literal(self, data_type: str) -> bool:
        """A literal of `data_type` (string, binary…), not null."""
        return (_simple(self.node["class"]) == "Literal" and self.node.get("dataType") == data_type
                and self.node.get("value") is not None)


def _trees(flat: list[dict[str, Any]]) -> list[_Expr]:
    """Rebuild the trees of one pre-order list from toJSON() (each node says how many children follow)."""
    out: list[_Expr] = []
    pos = 0

    def build() -> _Expr:
        nonlocal pos
        node = flat[pos]
        pos += 1
        count = node.get("num-children")
        children = [build() for _ in range(count if isinstance(count, int) else 0) if pos < len(flat)]
        return _Expr(node, children)

    while pos < len(flat):
        out.append(build())
    return out


def _calls(value: Any) -> Iterator[_Expr]:
    """Every function call (UnresolvedFunction) anywhere in toJSON()'s output, with its argument trees."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list) and item and all(isinstance(x, dict) and "num-children" in x for x in item):
            todo = _trees(item)
            while todo:
                expr = todo.pop()
                if _simple(expr.node["class"]) == "UnresolvedFunction":
                    yield expr
                todo.extend(expr.children)
                stack.extend(v for k, v in expr.node.items() if isinstance(v, (list, dict)) and k != "arguments")
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())


def _scala_keys(scala_map: Any) -> list[str]:
    """Keys of a Scala Map[String, String] in one JVM call."""
    if scala_map.isEmpty():
        return []
    return str(scala_map.keys().mkString("\u0001")).split("\u0001")


def _relation_options(plan: Any, expected: int, system: Any) -> tuple[list[str], list[tuple[list[str], str]]]:
    """Option keys (as written) of every relation in the parsed plan, read over py4j: toJSON() drops them; and the
    relations Spark marks as write targets (name parts, the write privileges Spark requires: INSERT, UPDATE, …).

    Walks children, inner children (CTE definitions) and subqueries, and plans held in other fields (INSERT's
    target, a view's body), each JVM node once (a subquery is both an inner child and a subquery). A relation
    toJSON() showed that the walk did not reach is reported as an option it could not read (refused).
    """
    keys: list[str] = []
    writes: list[tuple[list[str], str]] = []
    seen: set[int] = set()
    relations = 0
    stack = [plan]
    plan_class = None
    while stack:
        node = stack.pop()
        identity = int(system.identityHashCode(node))
        if identity in seen:
            continue
        seen.add(identity)
        name = str(node.nodeName())
        if name == "UnresolvedRelation":
            relations += 1
            options = node.options()
            if not options.isEmpty():
                keys.extend(str(k) for k in options.asCaseSensitiveMap().keySet()
                            if str(k).lower() not in INTERNAL_RELATION_OPTIONS)
                privileges = options.get(WRITE_PRIVILEGES_OPTION)
                if privileges is not None:
                    parts = str(node.multipartIdentifier().mkString("\u0001")).split("\u0001")
                    writes.append((parts, str(privileges).upper()))
            continue
        for getter in ("children", "innerChildren", "subqueries"):
            try:
                seq = getattr(node, getter)()
            except Exception:  # noqa: BLE001 - py4j: an inner child that is an expression has no subqueries()
                continue
            stack.extend(seq.apply(i) for i in range(seq.size()))
        if name in PLAN_FIELD_NODES:
            if plan_class is None:
                plan_class = node.getClass().getClassLoader().loadClass(LOGICAL_PLAN_CLASS)
            fields = node.productIterator()
            while fields.hasNext():
                value = fields.next()
                if isinstance(value, JavaObject) and plan_class.isInstance(value):
                    stack.append(value)
    if relations < expected:
        keys.append("(options the guard could not read)")
    return keys, writes


def _nodes(value: Any) -> Iterator[dict[str, Any]]:
    """Every plan and expression node anywhere in toJSON()'s output (children, subqueries, CTEs, nested plans)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "class" in item:
                yield item
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


__all__ = ["ENGINE_STATIC_CONF", "DEFAULT_CONF_ALLOWLIST", "GuardPolicy", "GuardRefusal", "GuardScope", "RULES",
           "SqlGuard"]
