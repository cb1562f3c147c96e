"""The one reader of a Hive catalog's metastore settings: `hive-site.xml` properties and thrift:// addresses.

Django-free, so both the catalog API (`catalogs/types/hive.py`: test connection, browsing) and the Spark binding
(`lakeport_engine/bindings/hive.py`: session confs, lineage identity) read a `hive-conf-dir` and a metastore URI the
same way.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path

from lakeport_engine.datasets import host_port

THRIFT_PORT = 9083  # the metastore's default port
URIS = "hive.metastore.uris"
WAREHOUSE = "hive.metastore.warehouse.dir"
_CONNECTION_URL = "javax.jdo.option.ConnectionURL"


class HiveSiteError(ValueError):
    """`<hive-conf-dir>/hive-site.xml` is missing, unreadable or not XML."""


def hive_site(conf_dir: str) -> dict[str, str]:
    """The properties of `<conf_dir>/hive-site.xml`, name → trimmed value."""
    path = Path(conf_dir) / "hive-site.xml"
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise HiveSiteError(f"hive-conf-dir {conf_dir}: hive-site.xml cannot be read ({type(exc).__name__}).") from None
    props: dict[str, str] = {}
    for prop in root.iter("property"):
        name, value = prop.findtext("name"), prop.findtext("value")
        if name and value is not None:
            props[name.strip()] = value.strip()
    return props


def split_uris(value: str) -> list[str]:
    """A comma list of metastore URIs, trimmed, in the order written, empty entries dropped."""
    return [u.strip() for u in value.split(",") if u.strip()]


def metastore_address(uri: str) -> tuple[str, int]:
    """Lower-case host and port of a `thrift://host[:port]` URI; Hive's default port when it names none."""
    return host_port(uri, THRIFT_PORT)


def embedded_location(site: Mapping[str, str]) -> str:
    """The Derby database an embedded metastore keeps its catalog in (`javax.jdo.option.ConnectionURL`), or "".

    Only the database name is taken: a connection URL's other attributes may hold a user and password.
    """
    url = site.get(_CONNECTION_URL, "")
    if not url.startswith("jdbc:derby:"):
        return ""
    name, *attributes = url.removeprefix("jdbc:derby:").split(";")
    for attribute in attributes:
        key, _, value = attribute.partition("=")
        if key.strip() == "databaseName":
            name = value
    return name.strip()


__all__ = ["THRIFT_PORT", "URIS", "WAREHOUSE", "HiveSiteError", "embedded_location", "hive_site",
           "metastore_address", "split_uris"]
