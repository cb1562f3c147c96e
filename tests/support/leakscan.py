"""The session-wide leak scan, a pytest plugin loaded by tests/conftest.py.

While the suite runs it collects, from the test side only (nothing in the application changes):
- every response a Django/DRF test client receives (body and headers), and the bearer token it sent, which
  becomes a secret to look for;
- every log record of the test process, as the configured handlers write it (after the redaction filter);
- after each database test, before its data is rolled back or truncated: the secrets stored in catalog rows and
  alert channels (decrypted — they are what must never come out), and any secret in the job log table, run errors,
  results and statements, the audit trail, alert bodies and channels' last errors, or in plain text inside a
  stored configuration (secrets are encrypted at rest);
- at the end: log files and Spark event logs under the session's temporary directory (servers, workers, beat
  and Spark drivers that tests start write there) and any directory a test added with `watch_dir()`.

`tests/security/test_leak_scan.py::test_no_secret_leaked_anywhere_in_the_session` runs last and fails listing
every place a secret value appeared. Secrets come from tests/support/secrets.py.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.secrets import known_secrets, leaks_in, masked, register_secret

LAST_MARKER = "leak_scan_last"
MAX_TEXT = 2_000_000  # per captured item; a body larger than this is scanned in its first 2 MB only
MAX_FILE = 50 * 1024 * 1024
LOG_NAMES = (".log", ".out", ".err", ".inprogress")
# Spark event log codecs: zstd (Spark 4's default) is read; an unreadable log is no proof, so it counts as unscanned
COMPRESSED = (".zstd", ".lz4", ".snappy", ".lzf", ".gz")
EVENT_LOG_PREFIXES = ("local-", "app-", "events_", "eventlog_v2_", "spark-")
DB_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback", "live_server"}
# Where an API token is shown on purpose: its creation response (once). Nothing else may ever echo one.
TOKEN_ISSUE_PATH = "/api/v1/tokens/"


def file_text(path: Path) -> str | None:
    """A log or Spark event log file's text (a zstd event log decompressed); None for a codec it cannot read."""
    if path.name.endswith(".zstd"):
        return zstd_text(path)
    if path.name.endswith(COMPRESSED):
        return None
    with open(path, "rb") as fh:
        return fh.read(MAX_FILE).decode("utf-8", errors="replace")


def zstd_text(path: Path) -> str | None:
    """A zstd-compressed event log's text; a live engine's log ends in an open frame, so reading stops there.
    None when not even its first frame decodes."""
    import pyarrow as pa

    chunks: list[bytes] = []
    size = 0
    try:
        with pa.CompressedInputStream(pa.OSFile(str(path)), "zstd") as stream:
            while size < MAX_FILE and (chunk := stream.read(1 << 16)):
                chunks.append(bytes(chunk))
                size += len(chunk)
    except (pa.ArrowException, OSError):
        if not chunks:
            return None
    return b"".join(chunks).decode("utf-8", errors="replace")


@dataclass
class Finding:
    where: str
    test: str
    secret: str

    def __str__(self) -> str:
        what = masked(self.secret) if self.secret else "unscanned"
        return f"{what} in {self.where} (during {self.test or 'session'})"


@dataclass
class LeakScan:
    """What the session captured, and the scan over it."""

    responses: list[tuple[str, str, str]] = field(default_factory=list)  # (test, label, text)
    logs: list[tuple[str, str]] = field(default_factory=list)  # (test, text)
    findings: list[Finding] = field(default_factory=list)  # found as tests ran (database scans)
    dirs: list[Path] = field(default_factory=list)
    current_test: str = ""
    tests_scanned_in_db: int = 0
    issued_tokens: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # ---- capture ---------------------------------------------------------------------------------------------
    def record_response(self, label: str, text: str) -> None:
        """Keep a response (or any text a client of the system received) for the final scan."""
        with self._lock:
            self.responses.append((self.current_test, label, text[:MAX_TEXT]))

    def record_log(self, text: str) -> None:
        with self._lock:
            self.logs.append((self.current_test, text[:MAX_TEXT]))

    def watch_dir(self, path: Path) -> None:
        """Scan the log and Spark event log files under `path` at the end of the session."""
        self.dirs.append(Path(path))

    # ---- scan ------------------------------------------------------------------------------------------------
    def scan(self, extra_dirs: list[Path] = ()) -> list[Finding]:  # type: ignore[assignment]
        """Everything found: during the session (database) and now (responses, logs, files)."""
        secrets = known_secrets()
        found = list(self.findings)
        for test, label, text in self.responses:
            for secret in leaks_in(text, secrets):
                if secret in self.issued_tokens and label.startswith(f"201 POST {TOKEN_ISSUE_PATH}"):
                    continue
                found.append(Finding(f"response {label}", test, secret))
        for test, text in self.logs:
            found.extend(Finding("log record", test, s) for s in leaks_in(text, secrets))
        for path in self.files([*self.dirs, *extra_dirs]):
            try:
                text = file_text(path)
            except OSError:
                continue
            if text is None:
                found.append(Finding(f"file {path}: compressed, so it could not be scanned", "", ""))
                continue
            found.extend(Finding(f"file {path}", "", s) for s in leaks_in(text, secrets))
        return found

    @staticmethod
    def files(dirs: list[Path]) -> Iterator[Path]:
        """Log files and Spark event logs under `dirs` (data files, databases and catalogs stores are skipped)."""
        seen: set[Path] = set()
        for root in dirs:
            if not root.exists():
                continue
            for dirpath, _dirnames, filenames in os.walk(root):
                in_event_dir = "eventlog" in dirpath or "spark-events" in dirpath
                for name in filenames:
                    path = Path(dirpath, name)
                    if path in seen or path.is_symlink():
                        continue
                    if in_event_dir or name.endswith(LOG_NAMES) or name.startswith(EVENT_LOG_PREFIXES):
                        seen.add(path)
                        yield path

    def scan_database(self, test: str) -> None:
        """Learn the secrets stored in catalog rows and look for any secret in the tables a user or log reader sees."""
        from django.db import transaction

        from alerts.models import AlertChannel, AlertDelivery
        from catalogs.models import Catalog, CatalogChange
        from catalogs.secrets import secret_box, secret_fields, stored_plain
        from catalogs.types import get_catalog_type
        from jobs.models import JobRun, JobRunLogLine

        with transaction.atomic():
            rows = list(Catalog.objects.values_list("catalog_name", "catalog_type", "configuration"))
            for name, catalog_type, stored in rows:
                try:
                    plain = stored_plain(stored)
                    fields = secret_fields(get_catalog_type(catalog_type).config_model)
                except Exception:  # a row sealed with another key or of a test-only type: nothing to learn
                    continue
                for alias in fields.scalars:
                    if isinstance(plain.get(alias), str):
                        register_secret(plain[alias], f"catalog {name}")
                for alias in fields.maps:
                    for value in (plain.get(alias) or {}).values():
                        if isinstance(value, str):
                            register_secret(value, f"catalog {name}")
            channels = list(AlertChannel.objects.values_list("name", "secret", "last_error"))
            for name, sealed, _error in channels:  # a webhook's signing key, a Slack URL: never to come out
                if sealed:
                    with contextlib.suppress(Exception):
                        register_secret(secret_box().decrypt(sealed), f"alert channel {name}")
            secrets = known_secrets()
            if not secrets:
                return
            for name, _sealed, error in channels:
                self.findings.extend(Finding(f"alert channel {name}: last error", test, s)
                                     for s in leaks_in(error, secrets))
            for delivery_id, body in AlertDelivery.objects.values_list("id", "message"):
                self.findings.extend(Finding(f"alert delivery {delivery_id}", test, s)
                                     for s in leaks_in(repr(body), secrets))
            for name, _type, stored in rows:
                self.findings.extend(Finding(f"catalog {name}: configuration stored in plain text", test, s)
                                     for s in leaks_in(stored, secrets))
            for run_id, message in JobRunLogLine.objects.values_list("run_id", "message"):
                self.findings.extend(Finding(f"job log of run {run_id}", test, s) for s in leaks_in(message, secrets))
            for run_id, *parts in JobRun.objects.values_list("id", "error", "result", "statements", "catalogs_used"):
                self.findings.extend(Finding(f"run {run_id} error/result/statements", test, s)
                                     for s in leaks_in(repr(parts), secrets))
            for name, changes in CatalogChange.objects.values_list("catalog_name", "changes"):
                self.findings.extend(Finding(f"audit trail of {name}", test, s) for s in leaks_in(repr(changes), secrets))
        self.tests_scanned_in_db += 1


SCAN = LeakScan()


class _CaptureHandler(logging.Handler):
    """Keeps each record as a log file would show it: message and traceback after the redaction filter."""

    def emit(self, record: logging.LogRecord) -> None:
        from lakeport_kernel.redaction import redact

        try:
            text = redact(record.getMessage())
        except Exception:
            text = redact(str(record.msg))
        if record.exc_info and record.exc_info[1] is not None:
            text += "\n" + redact("".join(traceback.format_exception(*record.exc_info)))
        elif record.exc_text:
            text += "\n" + redact(record.exc_text)
        extras = {k: v for k, v in record.__dict__.items() if k not in _STANDARD_ATTRS}
        if extras:
            text += " " + redact(repr(extras))
        SCAN.record_log(f"{record.name}: {text}")


_STANDARD_ATTRS = set(vars(logging.LogRecord("x", 0, "x", 0, "x", None, None))) | {"message", "asctime"}
_handler = _CaptureHandler(level=logging.NOTSET)


def _patch_test_client() -> None:
    """Record what every Django/DRF test client receives, and learn the bearer tokens they send."""
    from django.test.client import Client

    if getattr(Client.request, "_leak_scan", False):
        return
    original = Client.request

    def request(self: Any, **environ: Any) -> Any:
        auth = str(environ.get("HTTP_AUTHORIZATION") or getattr(self, "_credentials", {}).get("HTTP_AUTHORIZATION", ""))
        if auth.lower().startswith("bearer "):
            register_secret(auth.split(None, 1)[1].strip(), "bearer token")
        response = original(self, **environ)
        try:
            body = b"" if getattr(response, "streaming", False) else response.content
            path = environ.get("PATH_INFO", "")
            label = f"{response.status_code} {environ.get('REQUEST_METHOD', 'GET')} {path}"
            text = body.decode("utf-8", errors="replace") + "\n" + "\n".join(f"{k}: {v}" for k, v in response.items())
            if response.status_code == 201 and path == TOKEN_ISSUE_PATH:
                token = _issued_token(body)
                if token:
                    SCAN.issued_tokens.add(token)
                    register_secret(token, "issued API token")
            SCAN.record_response(label, text)
        except Exception:  # recording must never change a test's outcome
            pass
        return response

    request._leak_scan = True  # type: ignore[attr-defined]
    Client.request = request  # type: ignore[method-assign]


def _issued_token(body: bytes) -> str | None:
    import json

    try:
        data = json.loads(body)
    except ValueError:
        return None
    for key in ("token", "raw", "key"):
        if isinstance(data, dict) and isinstance(data.get(key), str):
            return data[key]
    return None


# ---- pytest hooks ------------------------------------------------------------------------------------------
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{LAST_MARKER}: the session-wide leak scan (runs after every other test)")


def pytest_sessionstart(session: pytest.Session) -> None:
    _patch_test_client()
    root = logging.getLogger()
    if _handler not in root.handlers:
        root.addHandler(_handler)
    # The platform's own loggers at DEBUG too: a secret in a debug message is still a secret in a log file.
    logging.getLogger("lakeport").setLevel(logging.DEBUG)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    last = [i for i in items if i.get_closest_marker(LAST_MARKER)]
    items[:] = [i for i in items if not i.get_closest_marker(LAST_MARKER)] + last


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    SCAN.current_test = item.nodeid
    yield
    SCAN.current_test = ""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield
    # After the test body, before fixtures roll back or truncate what it wrote.
    uses_db = bool(DB_FIXTURES & set(getattr(item, "fixturenames", ()))) or item.get_closest_marker("django_db")
    if not uses_db:
        return
    # No database access in this test after all, or a connection the test left broken: nothing to scan.
    with contextlib.suppress(Exception):
        SCAN.scan_database(item.nodeid)


@pytest.fixture(scope="session")
def leak_scan() -> LeakScan:
    """The session's LeakScan: tests add response texts of servers they call over HTTP and directories to scan."""
    return SCAN
