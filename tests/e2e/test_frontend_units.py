"""The frontend's own unit tests (vitest: schema-driven form values, editor markers, run statement marks,
completion's table references, chart column detection) run as part of the Python suite so `make test` covers them."""

from __future__ import annotations

import shutil
import subprocess

from tests.support.paths import REPO


def test_frontend_unit_tests_pass() -> None:
    npm = shutil.which("npm")
    assert npm, "npm is needed for the web UI (platform/scripts/build-frontend.sh installs its packages)"
    frontend = REPO / "frontend"
    assert (frontend / "node_modules").is_dir(), "run platform/scripts/build-frontend.sh first (make test does)"
    done = subprocess.run([npm, "test", "--silent"], cwd=frontend, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
