"""Regenerate the typed clients (`make client`) from the live OpenAPI schema: openapi-python-client →
lakeport_client/, and openapi-typescript → the browser app's frontend/src/lib/api-schema.d.ts.

One deterministic command: the schema is rendered in-process exactly as /api/schema/ serves it, the generators
are pinned (pyproject test extras, frontend/package-lock.json), the Python output is formatted with ruff, and
nothing carries a timestamp — so the committed files differ from fresh ones only when the API changed
(tests/integrations/test_client.py checks both). The hand-written layer (lakeport_client_ext/) is never touched.

    .venv/bin/python clients/python/generate.py              # rewrite lakeport_client and api-schema.d.ts
    .venv/bin/python clients/python/generate.py --typescript # only api-schema.d.ts (`npm run api-types`)
    .venv/bin/python clients/python/generate.py --check      # exit 1 when either is stale
    .venv/bin/python clients/python/generate.py --snapshot   # release: docs/api/openapi-<version>.json
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PACKAGE = "lakeport_client"
CONFIG = HERE / "openapi-python-client.yaml"
SCHEMA_COPY = HERE / "openapi.json"  # the schema the committed client was generated from, for readers
FRONTEND = REPO / "frontend"
TYPESCRIPT_TYPES = FRONTEND / "src" / "lib" / "api-schema.d.ts"


def live_schema() -> dict[str, Any]:
    """The OpenAPI document /api/schema/ serves, rendered in-process (Django set up with the default settings)."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
    import django

    django.setup()
    from drf_spectacular.generators import SchemaGenerator

    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(json.dumps(schema, default=str))  # lazy translation strings → plain JSON


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def generate(schema: dict[str, Any], destination: Path) -> Path:
    """Generate the client package for `schema` into `destination/lakeport_client` (created fresh) and return it."""
    with tempfile.TemporaryDirectory(prefix="lakeport-client-") as work:
        spec = Path(work) / "openapi.json"
        spec.write_text(schema_text(schema))
        out = Path(work) / PACKAGE
        generator = Path(sys.executable).with_name("openapi-python-client")
        done = subprocess.run(
            [str(generator), "generate", "--path", str(spec), "--meta", "none", "--output-path", str(out),
             "--config", str(CONFIG), "--fail-on-warning"],
            cwd=work, capture_output=True, text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(f"openapi-python-client failed:\n{done.stdout}\n{done.stderr}")
        # Formatted in isolation from the repo's ruff settings so the output depends on the generator only.
        for args in (["check", "--fix", "--isolated", "--select", "I,F401", "--quiet"],
                     ["format", "--isolated", "--line-length", "120", "--quiet"]):
            subprocess.run([sys.executable, "-m", "ruff", *args, str(out)], check=True, cwd=work)
        target = destination / PACKAGE
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(out, target)
    return target


def typescript_types(schema: dict[str, Any]) -> str:
    """The TypeScript declarations openapi-typescript (frontend/node_modules, pinned by its lockfile) makes of `schema`."""
    generator = FRONTEND / "node_modules" / ".bin" / "openapi-typescript"
    if not generator.exists():
        raise RuntimeError(f"{generator} is missing: run `bash platform/scripts/build-frontend.sh` (npm ci) first")
    with tempfile.TemporaryDirectory(prefix="lakeport-ts-") as work:
        spec, out = Path(work) / "openapi.json", Path(work) / "api-schema.d.ts"
        spec.write_text(schema_text(schema))
        # A request field with a default is optional to send: openapi-typescript would otherwise make it required.
        done = subprocess.run([str(generator), str(spec), "--output", str(out), "--default-non-nullable=false"],
                              cwd=FRONTEND, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"openapi-typescript failed:\n{done.stdout}\n{done.stderr}")
        return out.read_text()


def differences(left: Path, right: Path) -> list[str]:
    """Relative paths that differ between two package trees (added, removed or changed files)."""
    found: list[str] = []

    def walk(cmp: filecmp.dircmp[str], prefix: str) -> None:
        found.extend(prefix + n for n in cmp.left_only + cmp.right_only + cmp.diff_files + cmp.funny_files)
        for name, sub in cmp.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(left, right, ignore=["__pycache__"]), "")
    return sorted(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed client; change nothing")
    parser.add_argument("--snapshot", action="store_true",
                        help="release: write docs/api/openapi-<info.version>.json (see docs/api/CHANGELOG.md)")
    parser.add_argument("--force", action="store_true", help="with --snapshot: replace an existing snapshot")
    parser.add_argument("--typescript", action="store_true", help="only the browser app's api-schema.d.ts")
    options = parser.parse_args()
    schema = live_schema()
    if options.snapshot:
        target = REPO / "docs" / "api" / f"openapi-{schema['info']['version']}.json"
        if target.exists() and not options.force:
            print(f"{target} exists: a released schema is never rewritten (--force only before it is published)")
            return 1
        target.write_text(schema_text(schema))
        print(f"wrote {target}")
        return 0
    if options.check:
        with tempfile.TemporaryDirectory() as fresh:
            stale = differences(HERE / PACKAGE, generate(schema, Path(fresh)))
        if SCHEMA_COPY.read_text() != schema_text(schema):
            stale.append(SCHEMA_COPY.name)
        if TYPESCRIPT_TYPES.read_text() != typescript_types(schema):
            stale.append(str(TYPESCRIPT_TYPES.relative_to(REPO)))
        for path in stale:
            print(f"stale: {path}")
        if stale:
            print("The committed clients are stale: run `make client` and commit clients/python and frontend/src/lib.")
        return 1 if stale else 0
    if not options.typescript:
        generate(schema, HERE)
        SCHEMA_COPY.write_text(schema_text(schema))
        print(f"wrote {HERE / PACKAGE} and {SCHEMA_COPY.name} (API version {schema['info']['version']})")
    TYPESCRIPT_TYPES.write_text(typescript_types(schema))
    print(f"wrote {TYPESCRIPT_TYPES.relative_to(REPO)} (API version {schema['info']['version']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
