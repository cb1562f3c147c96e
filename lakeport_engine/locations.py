"""Where a Hive metastore says a table lives is not trusted: every location is checked before a statement runs.

A team admin may point a Hive catalog at a metastore they control, whose tables may say LOCATION '<another team's
Delta directory>': reading it reads that team's files, and INSERT OVERWRITE deletes them. So before a statement runs
on a session whose session catalog is a team's Hive catalog, Spark analyzes it without executing
(`CommandExecutionMode.SKIP`), and every table the plan reads or writes (HiveTableRelation, LogicalRelation over
a converted Hive table, InsertIntoHiveTable, InsertIntoHadoopFsRelationCommand, CTAS, commands naming a table by
identifier) is looked up: its location, the default path of a table being created, and every partition's location
from the external catalog. Each must be a place the team may use, as judged by a `LocationJudge`: in an engine the
platform answers over the channel with the same rule as catalog saves (the team's data roots and no other team's
catalog paths, catalogs/services/paths.py); without a platform (plain spark-submit) only the catalog's own
warehouse is allowed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from lakeport_engine.errors import SparkRuntimeError

# Judges locations: returns {location: reason} for those refused (an empty dict: all may be used).
LocationJudge = Callable[[list[str]], dict[str, str]]
RULE = "hive-location"
PATH_LABEL = "a path of the plan"
MAX_NODES = 5_000  # plan nodes walked at most (a plan is rarely more than a few hundred)
MAX_ITEMS = 500  # elements of one Scala collection looked into
_CATALOG_TABLE = "org.apache.spark.sql.catalyst.catalog.CatalogTable"
_TABLE_IDENTIFIER = "org.apache.spark.sql.catalyst.TableIdentifier"
_V1_TABLE = "org.apache.spark.sql.connector.catalog.V1Table"
_HADOOP_PATH = "org.apache.hadoop.fs.Path"
_HADOOP_FS_RELATION = "org.apache.spark.sql.execution.datasources.HadoopFsRelation"


class LocationRefusal(SparkRuntimeError):
    """A statement touches a table whose location (or a partition's) is not the team's: it does not run."""

    def __init__(self, what: str, reason: str, *, statement: int | None = None, line: int | None = None) -> None:
        where = f"Statement {statement + 1}, line {line}: " if statement is not None and line is not None else ""
        super().__init__(f"{where}{what} lies outside this team's data directories ({reason}); a Hive table is "
                         f"read or written only where the team's own catalogs may be (rule: {RULE})",
                         statement=statement)
        self.rule = RULE


@dataclass
class PlanLocations:
    """What one analyzed plan touches: `(label, location URI)` pairs, in the order found."""

    found: list[tuple[str, str]] = field(default_factory=list)
    _tables: set[str] = field(default_factory=set)

    def add(self, label: str, location: str) -> None:
        if location and (label, location) not in self.found:
            self.found.append((label, location))


def _name(obj: Any) -> str:
    try:
        return str(obj.getClass().getName())
    except Exception:  # a Python value py4j converted (str, int, bool): not a Java object
        return ""


def _items(seq: Any) -> list[Any]:
    items: list[Any] = []
    it = seq.iterator()
    while it.hasNext() and len(items) < MAX_ITEMS:
        items.append(it.next())
    return items


class _Walker:
    def __init__(self, spark: Any) -> None:
        self.jvm = spark.sparkContext._jvm
        self.catalog = spark._jsparkSession.sessionState().catalog()
        self.out = PlanLocations()

    def plan(self, node: Any) -> None:
        stack, seen = [node], 0
        while stack and seen < MAX_NODES:
            current = stack.pop()
            seen += 1
            simple = _name(current).rsplit(".", 1)[-1]
            if simple == "AlterTableSetLocationCommand":
                self.out.add(f"the new location of {current.tableName().unquotedString()}", str(current.location()))
            it = current.productIterator()
            while it.hasNext():
                self.value(it.next())
            stack += _items(current.children())
            stack += [c for c in _items(current.innerChildren()) if "plans.logical" in _name(c)
                      or "execution" in _name(c)]

    def value(self, value: Any) -> None:
        cls = _name(value)
        if not cls:
            return
        if cls == _CATALOG_TABLE:
            self.table(value)
        elif cls == _TABLE_IDENTIFIER:
            if self.catalog.tableExists(value):
                self.table(self.catalog.getTableMetadata(value))
        elif cls == _V1_TABLE:
            self.table(value.v1Table())
        elif cls.endswith(".ResolvedIdentifier"):  # DROP TABLE and v2 commands on the session catalog
            ident = value.identifier()
            namespace = list(ident.namespace())
            if len(namespace) == 1:
                table_ident = self.jvm.org.apache.spark.sql.catalyst.TableIdentifier.apply(
                    ident.name(), self.jvm.scala.Option.apply(namespace[0]))
                self.value(table_ident)
        elif cls == _HADOOP_PATH:
            self.out.add(PATH_LABEL, str(value.toString()))
        elif cls == _HADOOP_FS_RELATION:
            for path in _items(value.location().rootPaths()):
                self.out.add(PATH_LABEL, str(path.toString()))
        elif cls == "scala.Some":
            self.value(value.get())
        elif cls.startswith("scala.collection") and "Map" not in cls:
            for item in _items(value):
                inner = _name(item)
                if inner in (_CATALOG_TABLE, _TABLE_IDENTIFIER, _V1_TABLE, _HADOOP_PATH, "scala.Some"):
                    self.value(item)

    def table(self, table: Any) -> None:
        ident = table.identifier()
        label = f"table {ident.unquotedString()}"
        if label in self.out._tables:
            return
        self.out._tables.add(label)
        if str(table.tableType().name()) == "VIEW":
            return  # a view's tables are under it in the plan
        location = table.storage().locationUri()
        if location.isDefined():
            self.out.add(label, str(location.get().toString()))
        else:  # a table being created: where Spark will put it (the metastore's database location decides)
            self.out.add(label, str(self.catalog.defaultTablePath(ident).toString()))
        if table.partitionColumnNames().nonEmpty() and self.catalog.tableExists(ident):
            database = ident.database().getOrElse(None) if ident.database().isDefined() else \
                self.catalog.getCurrentDatabase()
            partitions = self.catalog.externalCatalog().listPartitions(database, ident.table(),
                                                                        self.jvm.scala.Option.empty())
            for partition in _items(partitions):
                uri = partition.storage().locationUri()
                if uri.isDefined():
                    self.out.add(f"a partition of {label}", str(uri.get().toString()))


def analyzed(spark: Any, sql: str) -> Any | None:
    """The analyzed plan of `sql`, without running it (commands are not executed); None when Spark cannot analyze
    it — then Spark refuses the statement itself when it runs, with the same error, and nothing is read."""
    from pyspark.errors import AnalysisException, ParseException

    jsession = spark._jsparkSession
    mode = spark.sparkContext._jvm.org.apache.spark.sql.execution.CommandExecutionMode.SKIP()
    try:
        parsed = jsession.sessionState().sqlParser().parsePlan(sql)
        return jsession.sessionState().executePlan(parsed, mode).analyzed()
    except Exception as exc:  # py4j wraps Spark's errors; only analysis and parse errors mean "Spark refuses it"
        from pyspark.errors.exceptions.captured import convert_exception

        java = getattr(exc, "java_exception", None)
        converted = convert_exception(java) if java is not None else exc
        if isinstance(converted, AnalysisException | ParseException):
            return None
        raise


def plan_locations(spark: Any, plan: Any) -> list[tuple[str, str]]:
    """`(label, location URI)` of every table, partition and path an analyzed plan reads or writes."""
    walker = _Walker(spark)
    walker.plan(plan)
    return walker.out.found


def check_locations(spark: Any, sql: str, judge: LocationJudge, *, statement: int | None = None,
                    line: int | None = None) -> None:
    """Raise LocationRefusal when `sql` would read or write a table location `judge` refuses (nothing runs)."""
    plan = analyzed(spark, sql)
    found = plan_locations(spark, plan) if plan is not None else []
    if not found:
        return
    refused = judge(sorted({location for _, location in found}))
    # a table's name says more than "a path of the plan" (a relation's files are found beside its table)
    for label, location in sorted(found, key=lambda item: item[0] == PATH_LABEL):
        if location in refused:
            raise LocationRefusal(label, refused[location], statement=statement, line=line)


def local_path(location: str) -> str | None:
    """The local path of a `file:` URI or a plain absolute path (resolved); None for another file system."""
    parts = urlsplit(location)
    if parts.scheme in ("", "file"):
        return os.path.realpath(parts.path or location)
    return None


def within(path: str, root: str) -> bool:
    """True when `path` is `root` or lies below it (both resolved)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def warehouse_judge(warehouses: Iterable[str]) -> LocationJudge:
    """The judge without a platform to ask: only locations under the catalog's own warehouse(s) may be used."""
    roots = [w for w in ((local_path(x) or x.rstrip("/")) for x in warehouses if x) if w]

    def judge(locations: list[str]) -> dict[str, str]:
        refused = {}
        for location in locations:
            path = local_path(location) or location.rstrip("/")
            if not any(within(path, root) for root in roots):
                refused[location] = "not under the catalog's warehouse"
        return refused

    return judge
