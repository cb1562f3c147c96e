"""Issue 28, the parser gap and functions with options, replayed through the public API as a developer of acme.

The critical finding: the guard's lexer ended a `--` comment only at LF while Spark's ends it at CR too, so
`SELECT * FROM pg.public.orders --x<CR>WITH ('url'=…, 'sessionInitStatement'=…, 'dbtable'=…)<LF>WHERE 1=1` passed
validate and ran as an inline JDBC source on the platform's database. Now relation options come from Spark's own
parsed plan and any option on a table is refused (rule inline-source), whatever the line ends, comment styles or
option spellings; write options too. Where both lexers agree a comment hides the options (U+2028, a backslash-LF
continuation), the statement runs as the plain catalog read it is. Functions: option keys that load a resource
(rowValidationXSDPath, avroSchemaUrl, protobuf descriptor files) are refused (function-option), metastore functions
are refused (persistent-function), and XML external entities are never resolved (a loopback HTTP server started
here sees no request, a local file's content never comes back).

Each attack goes through sql/validate, sql/preview and a job run: refused with the rule named, no row, no JVM frame,
and the canaries untouched (the secret file, the target directory, the platform's superusers).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from rest_framework.test import APIClient

from jobs.models import TERMINAL_STATUSES, RunStatus
from tests.jobs.conftest import wait_status
from tests.security.test_sql_guard_api import API, World, _assert_clean
from tests.security.test_sql_guard_api import guard_worker as guard_worker  # noqa: F401 - module fixture
from tests.security.test_sql_guard_api import world as world  # noqa: F401 - fixture
from tests.support.worker import Worker

pytestmark = [pytest.mark.django_db(transaction=True)]


class Listener:
    """A loopback HTTP server that records every request (an SSRF canary)."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        seen = self.requests

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's hook name
                seen.append(self.path)
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"<!ENTITY leak 'pwned'>")

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)


@pytest.fixture
def listener() -> Iterator[Listener]:
    canary = Listener()
    canary.thread.start()
    yield canary
    canary.server.shutdown()
    canary.server.server_close()


def exploit(w: World, line_end: str = "\r") -> str:
    """The issue's exploit: an inline JDBC source on the platform database behind a `--` comment ended by CR."""
    return ("SELECT * FROM pg.public.orders --x" + line_end +
            f"WITH ('url'='jdbc:postgresql://127.0.0.1:5432/{w.platform_db}', 'user'='postgres', 'password'='x', "
            "'sessionInitStatement'='UPDATE auth_user SET is_superuser = true', 'dbtable'='auth_user')\nWHERE 1=1")


def attacks(w: World, url: str) -> list[tuple[str, str]]:
    """(script, rule): the exploit and its variants, then functions with resource options."""
    init = "'UPDATE auth_user SET is_superuser = true'"
    s = w.secret
    return [
        (exploit(w), "inline-source"),
        (exploit(w, "\r\n"), "inline-source"),
        (exploit(w, "\n"), "inline-source"),
        (exploit(w, "\r\r"), "inline-source"),
        (f"SELECT * FROM pg.public.orders /* c */ WITH (sessionInitStatement {init})", "inline-source"),
        (f"SELECT * FROM pg.public.orders /* a /* nested */ b */ WITH (`sessionInitStatement` = {init})",
         "inline-source"),
        (f"select * from pg.public.orders with (\"SESSIONINITSTATEMENT\" = {init}) where 1=1", "inline-source"),
        ("SELECT 1 AS a;\r-- c\rSELECT * FROM pg.public.orders WITH ('DbTable' = 'auth_user')", "inline-source"),
        ("SELECT * FROM pg.public.orders --\rWITH (prepareQuery 'DROP TABLE x;') AS o", "inline-source"),
        ("SELECT * FROM pg.public.orders WITH ('customSchema' = 'id STRING')", "inline-source"),
        ("SELECT * FROM pg.public.orders WITH ('fetchsize' = '1')", "inline-source"),
        ("WITH q AS (SELECT * FROM pg.public.orders --\rWITH ('query' = 'SELECT 1')\n) SELECT * FROM q",
         "inline-source"),
        ("SELECT id FROM pg.public.orders WHERE id IN (SELECT id FROM pg.public.orders --\r"
         "WITH ('url' = 'jdbc:postgresql://localhost./postgres'))", "inline-source"),
        ("CREATE TEMPORARY VIEW v AS SELECT * FROM pg.public.orders --\rWITH ('driver' = 'x')", "inline-source"),
        (f"INSERT INTO pg.public.orders --\rWITH ('sessionInitStatement' = {init})\nSELECT 9, 9", "inline-source"),
        ("INSERT OVERWRITE pg.public.orders WITH ('dbtable' = 'auth_user') SELECT 9, 9", "inline-source"),
        ("EXPLAIN SELECT * FROM pg.public.orders --\rWITH ('url' = 'x')", "inline-source"),
        ("CREATE TABLE pg.public.made (a INT) TBLPROPERTIES ('x' = '; DROP TABLE public.orders; --')",
         "table-properties"),
        ("CREATE TABLE lake.default.made (a INT) USING parquet OPTIONS ('compression' = 'none')", "inline-source"),
        # functions with options that load a resource, in several spellings and URL schemes
        (f"SELECT from_xml('<a>1</a>', 'a INT', map('rowValidationXSDPath', '{url}/x.xsd'))", "function-option"),
        (f"SELECT from_xml('<a>1</a>', 'a INT', MAP('ROWVALIDATIONXSDPATH', 'file://{s}'))", "function-option"),
        (f"SELECT schema_of_xml('<a>1</a>', map('rowvalidationxsdpath', '{s}'))", "function-option"),
        (f"SELECT from_xml('<a>1</a>', 'a INT', str_to_map('rowValidationXSDPath:{url}/x'))", "function-option"),
        (f"SELECT from_xml('<a>1</a>', 'a INT', map(concat('rowValidation', 'XSDPath'), '{url}'))",
         "function-option"),
        (f"SELECT from_json('{{}}', 'a INT', map('x', 'y', 'avroSchemaUrl', '{url}'))", "function-option"),
        (f"SELECT from_avro(CAST('x' AS BINARY), '\"int\"', map('avroSchemaUrl', 'hdfs://127.0.0.1/{s}'))",
         "function-option"),
        (f"SELECT from_protobuf(CAST('x' AS BINARY), 'M', '{s}')", "function-option"),
        ("SELECT to_protobuf(named_struct('a', 1), 'java.lang.Runtime')", "function-option"),
        ("SELECT default.evil_udf(1)", "persistent-function"),
        ("SELECT spark_catalog.default.evil_udf(1) FROM pg.public.orders", "persistent-function"),
        ("SELECT evil_udf(id) FROM pg.public.orders", "persistent-function"),
    ]


CASES = list(range(31))


def test_the_case_list_is_complete(world: World) -> None:  # noqa: F811 - fixture
    assert len(attacks(world, "http://x")) == len(CASES)


@pytest.mark.parametrize("case", CASES)
def test_refused_in_validate_and_preview_with_the_rule(guard_worker: Worker, world: World,  # noqa: F811
                                                       developer_client: APIClient, listener: Listener,
                                                       case: int) -> None:
    script, rule = attacks(world, listener.url)[case]
    before = world.snapshot()
    validate = developer_client.post(f"{API}/sql/validate/", {"sql": script}, format="json")
    assert validate.status_code == 200, validate.content
    body = validate.json()
    assert body["valid"] is False and body["errors"], (script, body)
    _assert_clean(body["errors"][0]["message"], rule)
    preview = developer_client.post(f"{API}/sql/preview/", {"sql": script}, format="json")
    message = preview.json().get("error", {}).get("message", "")
    assert preview.status_code == 400 and "rows" not in preview.json(), preview.content
    if not message.startswith("Preview "):  # a write or a multi-statement script is refused by its shape first
        _assert_clean(message, rule)
    assert world.snapshot() == before
    assert listener.requests == []


def test_every_attack_fails_its_run_before_anything_runs(guard_worker: Worker, world: World,  # noqa: F811
                                                         developer_client: APIClient, listener: Listener) -> None:
    before = world.snapshot()
    runs = []
    for i, (script, rule) in enumerate(attacks(world, listener.url)):
        job = developer_client.post(f"{API}/jobs/", {"name": f"gap-{i}", "sql": script}, format="json")
        assert job.status_code == 201, job.content
        runs.append((developer_client.post(f"{API}/jobs/{job.json()['id']}/runs/").json()["id"], rule, script))
    for run_id, rule, script in runs:
        done = wait_status(run_id, *TERMINAL_STATUSES)
        assert done.status == RunStatus.FAILED and done.error is not None, (script, done.error)
        _assert_clean(done.error["message"], rule)
        assert done.result is None
        # the refused statement never ran: no statement after the refusal, none of them succeeded with rows
        assert not [s for s in done.statements if s["status"] == "succeeded" and s.get("rows")], done.statements
    assert world.snapshot() == before
    assert listener.requests == []


def test_where_both_lexers_see_a_comment_the_statement_is_a_plain_read(guard_worker: Worker, world: World,  # noqa: F811
                                                                       developer_client: APIClient) -> None:
    """U+2028 and a backslash before LF do not end a `--` comment (Spark's rule): the options are comment text for
    Spark too, so the read is the catalog's own table, and nothing reaches the platform database."""
    before = world.snapshot()
    options = "WITH ('url'='jdbc:postgresql://127.0.0.1:5432/x', 'dbtable'='auth_user')"
    for script in (f"SELECT id FROM pg.public.orders --x\u2028{options}\nORDER BY id",
                   f"SELECT id FROM pg.public.orders --x\\\n{options}\nORDER BY id",
                   f"SELECT id FROM pg.public.orders --x\u2029{options}\nORDER BY id"):
        validate = developer_client.post(f"{API}/sql/validate/", {"sql": script}, format="json").json()
        assert validate["valid"] is True, (script, validate)
        preview = developer_client.post(f"{API}/sql/preview/", {"sql": script}, format="json")
        assert preview.status_code == 200 and preview.json()["rows"] == [[1], [2]], preview.content
    assert world.snapshot() == before


def test_xml_external_entities_are_never_resolved(guard_worker: Worker, world: World,  # noqa: F811
                                                  developer_client: APIClient, listener: Listener) -> None:
    """from_xml, schema_of_xml and xpath over a document whose DOCTYPE names a local file and a loopback URL: the
    file's content never comes back and the URL is never fetched (the statement may fail; nothing leaks)."""
    secret = world.secret
    docs = [
        f"<!DOCTYPE a [<!ENTITY x SYSTEM \"file://{secret}\">]><a>&x;</a>",
        f"<!DOCTYPE a [<!ENTITY x SYSTEM \"{listener.url}/entity\">]><a>&x;</a>",
        f"<!DOCTYPE a SYSTEM \"{listener.url}/dtd\"><a>1</a>",
        f"<!DOCTYPE a [<!ENTITY % p SYSTEM \"{listener.url}/param\"> %p;]><a>&leak;</a>",
    ]
    before = world.snapshot()
    plain = developer_client.post(f"{API}/sql/preview/", {"sql": "SELECT xpath_string('<a>1</a>', '/a') AS r, "
                                                                   "from_xml('<r><a>2</a></r>', 'a INT').a AS x"},
                                  format="json")
    assert plain.status_code == 200 and plain.json()["rows"] == [["1", 2]], plain.content  # the functions do run
    for doc in docs:
        literal = doc.replace("'", "\\'")
        for sql in (f"SELECT from_xml('{literal}', 'a STRING') AS r",
                    f"SELECT schema_of_xml('{literal}') AS r",
                    f"SELECT xpath_string('{literal}', '/a') AS r"):
            response = developer_client.post(f"{API}/sql/preview/", {"sql": sql}, format="json")
            # Spark's XML functions parse it (entities unresolved); xpath may fail on the DTD it may not open
            assert response.status_code == 200 or (sql.startswith("SELECT xpath") and response.status_code == 400
                                                    and "rule:" not in response.json()["error"]["message"]), (
                sql, response.content)
            assert "fernet-key-that-must-stay-here" not in response.content.decode(), (sql, response.content)
            assert "pwned" not in response.content.decode()
    assert listener.requests == []
    assert world.snapshot() == before
