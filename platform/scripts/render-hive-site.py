"""Render platform/conf/hive-site.xml.template into a conf directory (used by hive-metastore.sh and tests)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from xml.sax.saxutils import escape

TEMPLATE = Path(__file__).resolve().parent.parent / "conf" / "hive-site.xml.template"


def render(conf_dir: Path, *, warehouse: str, db_url: str, db_driver: str) -> Path:
    """Write `<conf_dir>/hive-site.xml` and return its path."""
    conf_dir.mkdir(parents=True, exist_ok=True)
    text = TEMPLATE.read_text().format(
        warehouse=escape(warehouse), db_url=escape(db_url), db_driver=escape(db_driver)
    )
    target = conf_dir / "hive-site.xml"
    target.write_text(text)
    return target


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("conf_dir", type=Path)
    parser.add_argument("--warehouse", required=True)
    parser.add_argument("--derby-dir", help="embedded Derby database directory (default)")
    args = parser.parse_args()
    # An external metastore database comes from the environment so its password never sits on a command line.
    url = os.environ.get("HMS_DB_URL") or f"jdbc:derby:;databaseName={args.derby_dir};create=true"
    driver = os.environ.get("HMS_DB_DRIVER", "org.apache.derby.jdbc.EmbeddedDriver")
    print(render(args.conf_dir, warehouse=args.warehouse, db_url=url, db_driver=driver))
