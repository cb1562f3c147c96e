"""hive catalogs → Spark's session catalog (`spark_catalog`) with Hive support on the catalog's metastore.

Hive support and the metastore address are static confs: they are fixed when the SparkContext starts. So
the confs a script needs are computed before the session starts (`static_conf`), and at run time a Hive
catalog binds only when the session already points at the same metastore; otherwise the error says which
confs the session needs. One Hive catalog per Spark session.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from lakeport_engine.bindings.base import BindContext, Binding, BindingFailure, PlainBinding
from lakeport_engine.catalog_types import hive
from lakeport_engine.catalog_types.base import CatalogTypeDefinition
from lakeport_engine.datasets import CatalogInfo, Dataset, hive_dataset
from lakeport_engine.hive_site import (
    URIS,
    WAREHOUSE,
    HiveSiteError,
    embedded_location,
    hive_site,
    metastore_address,
)

if TYPE_CHECKING:
    from lakeport_engine.store import CatalogEntry

SESSION_CATALOG = "spark_catalog"
BUILTIN_HIVE_VERSION = "2.3.10"


class HiveConfigError(BindingFailure, ValueError):
    """The stored configuration names no metastore this runtime can use."""


def _hive_site(conf_dir: str) -> dict[str, str]:
    try:
        return hive_site(conf_dir)
    except HiveSiteError as exc:
        raise HiveConfigError(str(exc)) from None


def metastore_uris(config: dict[str, Any]) -> str:
    """The catalog's metastore URIs (comma list), from metastore-uris or hive-conf-dir/hive-site.xml."""
    uris = config.get("metastore-uris")
    if not uris and config.get("hive-conf-dir"):
        uris = _hive_site(str(config["hive-conf-dir"])).get(URIS)
    if not uris:
        raise HiveConfigError("hive catalog needs metastore-uris (or a hive-conf-dir whose hive-site.xml sets hive.metastore.uris).")
    return normalize_uris(str(uris))


def _embedded_location(config: dict[str, Any]) -> str:
    """Where a metastore without a Thrift URI keeps its catalog: its Derby database, else the warehouse."""
    site: dict[str, str] = {}
    if config.get("hive-conf-dir"):
        try:
            site = hive_site(str(config["hive-conf-dir"]))
        except HiveSiteError:
            site = {}
    return embedded_location(site) or str(config.get("warehouse") or site.get(WAREHOUSE) or "")


def normalize_uris(uris: str) -> str:
    """URIs trimmed, de-duplicated and sorted, so two spellings of one metastore compare equal."""
    return ",".join(sorted({u.strip().rstrip("/") for u in uris.split(",") if u.strip()}))


def static_conf(config: dict[str, Any]) -> dict[str, str]:
    """Static Spark confs a session needs to use this Hive catalog as its session catalog."""
    conf = {
        "spark.sql.catalogImplementation": "hive",
        "spark.hadoop.hive.metastore.uris": metastore_uris(config),
    }
    warehouse = config.get("warehouse")
    if not warehouse and config.get("hive-conf-dir"):
        warehouse = _hive_site(str(config["hive-conf-dir"])).get(WAREHOUSE)
    if warehouse:
        conf["spark.sql.warehouse.dir"] = str(warehouse)
    version = str(config.get("hive-version") or BUILTIN_HIVE_VERSION)
    if version != BUILTIN_HIVE_VERSION:
        # other metastore versions need their client jars; Spark reads them from spark.sql.hive.metastore.jars
        conf["spark.sql.hive.metastore.version"] = version
    return conf


def session_metastore(spark: Any) -> str | None:
    """The metastore URIs the running session's session catalog uses, or None without Hive support."""
    if spark.conf.get("spark.sql.catalogImplementation", "in-memory") != "hive":
        return None
    uris = spark.sparkContext.getConf().get("spark.hadoop.hive.metastore.uris", None)
    if not uris:
        uris = spark._jsparkSession.sharedState().hadoopConf().get("hive.metastore.uris")
    return normalize_uris(uris) if uris else ""


def check_session(spark: Any, name: str, config: dict[str, Any]) -> str:
    """Return the session catalog name if this session serves the Hive catalog; else raise with the needed confs."""
    wanted = metastore_uris(config)
    current = session_metastore(spark)
    if current == wanted:
        return SESSION_CATALOG
    needed = ", ".join(f"{k}={v}" for k, v in static_conf(config).items())
    have = "no Hive support" if current is None else f"metastore {current or '(local embedded)'}"
    raise HiveConfigError(
        f"Hive catalog '{name}' uses metastore {wanted}, but this Spark session was started with {have}. "
        f"Hive settings are static: start the session with {needed}."
    )


class HiveBinding(PlainBinding):
    """hive catalogs: the session catalog with Hive support; one per Spark session."""

    definition: ClassVar[CatalogTypeDefinition] = hive.DEFINITION
    key: ClassVar[str] = hive.DEFINITION.key
    display_name: ClassVar[str] = "Hive"
    sink: ClassVar[str | None] = "lakeport_engine.streaming.sinks.files:hive_sink"  # Spark's file sink

    def static_conf(self, entry: CatalogEntry, *, delta_mode: str) -> dict[str, str]:
        """Hive support and the metastore address (static)."""
        return static_conf(entry.configuration)

    def bind(self, ctx: BindContext, entry: CatalogEntry, old: Binding | None) -> Binding:
        """Check that the session already serves the catalog's metastore; one Hive catalog per session."""
        if ctx.state.hive not in (None, entry.name):
            raise HiveConfigError(
                f"Only one Hive catalog per Spark session: '{ctx.state.hive}' is already this session's "
                f"session catalog, so '{entry.name}' needs a separate session (a separate job)."
            )
        spark_name = check_session(ctx.spark, entry.name, entry.configuration)
        ctx.state.hive = entry.name
        return Binding(entry.name, self.key, entry.fingerprint, entry.version, spark_name, entry.configuration)

    def unbind(self, ctx: BindContext, binding: Binding) -> None:
        """Free the session's Hive slot (the static confs stay: they cannot change)."""
        if ctx.state.hive == binding.name:
            ctx.state.hive = None

    def summary(self, binding: Binding) -> str:
        """`hive metastore <uris> as spark_catalog`."""
        return f"hive metastore {metastore_uris(binding.configuration)} as {binding.spark_name}"

    def lineage_dataset(self, binding: Binding, database: str, table: str) -> Dataset | None:
        """`database.table` on `hive://host:port` of the first metastore URI the session is configured with."""
        return hive_dataset(self.lineage_catalog(binding), database, table)

    def lineage_catalog(self, binding: Binding) -> CatalogInfo:
        """Host and port of the first metastore URI, from `metastore-uris` or the `hive-conf-dir`'s hive-site.xml
        (as `static_conf` configures the session); an embedded metastore by the Derby database or warehouse."""
        config = binding.configuration
        try:
            first = metastore_uris(config).split(",")[0]
        except HiveConfigError:  # no Thrift URI anywhere: an embedded metastore
            return CatalogInfo(binding.name, self.key, location=_embedded_location(config))
        host, port = metastore_address(first)
        return CatalogInfo(binding.name, self.key, host=host, port=port)

    def default_database(self, config: dict[str, Any]) -> str | None:
        """The catalog's `default-database`."""
        value = config.get("default-database")
        return str(value) if value else None
