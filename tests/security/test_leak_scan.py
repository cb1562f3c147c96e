"""The leak scan over the whole session (tests/support/leakscan.py), and proof that the scan can find a leak."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from tests.support.leakscan import LAST_MARKER, SCAN, LeakScan, _CaptureHandler
from tests.support.secrets import known_secrets, leaks_in, register_secret

PLANTED = "planted-Secr3t-0a9b8c7d"


def test_the_scan_finds_a_planted_secret_in_each_kind_of_output(tmp_path: Path) -> None:
    scan = LeakScan()
    register_secret(PLANTED, "leak scan self-test")
    scan.record_response("200 GET /api/v1/x/", f'{{"password": "{PLANTED}"}}')
    scan.record_log("lakeport.x: clean line")
    (tmp_path / "worker.log").write_text(f"connecting with {PLANTED}\n")
    events = tmp_path / "eventlog_v2_local-1" / "events_1_local-1"
    events.parent.mkdir()
    events.write_text('{"Event":"SparkListenerEnvironmentUpdate","x":"' + PLANTED + '"}')
    (tmp_path / "part-0000.parquet").write_bytes(PLANTED.encode())  # data files are not logs: not scanned
    scan.watch_dir(tmp_path)

    findings = scan.scan()
    where = sorted(f.where for f in findings if f.secret == PLANTED)

    assert where == [f"file {events}", f"file {tmp_path / 'worker.log'}", "response 200 GET /api/v1/x/"]
    assert not [f for f in findings if f.secret != PLANTED]


def test_a_zstd_event_log_is_read_and_another_codec_counts_as_unscanned() -> None:
    """Spark 4 writes zstd event logs: a secret inside one is found (even in a live log's open last frame); a codec
    the scan cannot read, or a zstd file that does not decode, is reported as unscanned rather than passed."""
    import pyarrow as pa

    scan = LeakScan()
    with tempfile.TemporaryDirectory() as tmp:  # outside the session's temp dir, which the final scan reads
        logs = Path(tmp) / "eventlog_v2_local-2"
        logs.mkdir()
        with pa.CompressedOutputStream(str(logs / "events_1_local-2.zstd"), "zstd") as out:
            out.write(f'{{"Event":"SparkListenerSQLExecutionStart","details":"{PLANTED}"}}\n'.encode())
        (logs / "events_2_local-2.lz4").write_bytes(b"\x04\x22\x4d\x18")
        (logs / "events_3_local-2.zstd").write_bytes(b"\x28\xb5\x2f\xfd")
        scan.watch_dir(Path(tmp))
        found = sorted((f.where.rsplit("/", 1)[-1], f.secret == PLANTED) for f in scan.scan())
    assert found == [("events_1_local-2.zstd", True),
                     ("events_2_local-2.lz4: compressed, so it could not be scanned", False),
                     ("events_3_local-2.zstd: compressed, so it could not be scanned", False)]


def test_the_log_capture_sees_what_the_handlers_write(caplog: pytest.LogCaptureFixture) -> None:
    """Records are kept after the platform's redaction: a registered runtime secret is masked, an unknown one is not."""
    from lakeport_kernel.redaction import register_secret as runtime_register

    runtime_register("runtime-Secr3t-11aa22bb")  # the runtime decrypted it, so its filter masks it
    before = len(SCAN.logs)
    logging.getLogger("lakeport.leakscan").warning("opening with %s and %s", "runtime-Secr3t-11aa22bb", PLANTED)
    handler_text = SCAN.logs[-1][1] if len(SCAN.logs) > before else ""
    assert "runtime-Secr3t-11aa22bb" not in handler_text and "***" in handler_text
    assert leaks_in(handler_text, [PLANTED]) == [PLANTED]  # the scan would report this one
    # Not a leak of the product: drop the self-test record so the session scan stays about the platform.
    SCAN.logs.pop()
    assert isinstance(logging.getLogger().handlers[-1], _CaptureHandler) or any(
        isinstance(h, _CaptureHandler) for h in logging.getLogger().handlers)


@pytest.mark.django_db
def test_test_clients_are_recorded_and_their_bearer_tokens_become_secrets(admin_client: APIClient) -> None:
    before = len(SCAN.responses)
    admin_client.get("/api/v1/teams/acme/catalogs/")
    assert len(SCAN.responses) == before + 1 and SCAN.responses[-1][1] == "200 GET /api/v1/teams/acme/catalogs/"
    token = admin_client._credentials["HTTP_AUTHORIZATION"].split()[1]
    assert token in known_secrets()


@pytest.mark.django_db
def test_secrets_of_catalog_rows_are_learned_after_each_database_test(team: object) -> None:
    from catalogs.models import Catalog
    from catalogs.secrets import seal_configuration
    from lakeport_engine.catalog_types.jdbc import JdbcConfig

    config = JdbcConfig.model_validate({"type": "postgresql", "base-url": "jdbc:postgresql://127.0.0.1:5432/",
                                        "default-database": "x", "username": "u", "password": "row-Secr3t-5e6f7a8b"})
    Catalog.objects.create(team=team, catalog_type="jdbc", catalog_name="learned", configuration=seal_configuration(config))
    SCAN.scan_database("self-test")
    assert known_secrets().get("row-Secr3t-5e6f7a8b") == "catalog learned"


@pytest.mark.leak_scan_last
def test_no_secret_leaked_anywhere_in_the_session(request: pytest.FixtureRequest) -> None:
    """Runs after every other test: no secret in any response, log record, log file, Spark event log, job log,
    run error, audit entry or stored configuration seen during the session."""
    basetemp = request.config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    repo = Path(__file__).resolve().parents[2]
    findings = [f for f in SCAN.scan([basetemp, repo / "test-artifacts"]) if f.secret != PLANTED]

    assert known_secrets(), "no secret was registered: the scan would prove nothing"
    assert SCAN.responses, "no response was captured: the scan would prove nothing"
    assert not findings, "secret values leaked:\n" + "\n".join(sorted({str(f) for f in findings}))


assert LAST_MARKER == "leak_scan_last"
