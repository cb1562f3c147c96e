"""The worker's parse server: Spark's SQL parser in a small JVM, answering syntax checks while engines start.

`python -m lakeport_engine.parse_server` starts a bare JVM over py4j (Spark's jars, no SparkContext, no session,
no catalog) holding one `SparkSqlParser`, prints `{"ready": true}` and then answers one JSON line per JSON line
on stdin: `{"id": n, "script": "…"}` → `{"id": n, "problems": [...]}` (`lakeport_engine/syntax.py`), or
`{"id": n, "error": "…"}` when the check itself failed. The worker starts it with an allow-listed environment
(no platform secret) and keeps one per process (jobs/engines/parser.py). Parsing runs nothing the user wrote.
"""

from __future__ import annotations

import glob
import json
import os
import sys
from typing import Any, TextIO

from lakeport_engine.syntax import syntax_problems
from lakeport_kernel.redaction import redact

# A parser needs little: a small heap and the serial collector keep this JVM out of the engines' way.
JAVA_OPTIONS = ["-Xmx192m", "-Xss4m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true"]


def spark_parser() -> Any:
    """A JVM `SparkSqlParser` in a fresh py4j gateway (the JVM exits with this process)."""
    import pyspark
    from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway

    jars = os.path.join(os.path.dirname(pyspark.__file__), "jars")
    py4j_jar = glob.glob(os.path.join(jars, "py4j-*.jar"))
    port = launch_gateway(jarpath=py4j_jar[0] if py4j_jar else "", classpath=os.path.join(jars, "*"),
                          javaopts=JAVA_OPTIONS, die_on_exit=True, redirect_stdout=sys.stderr,
                          redirect_stderr=sys.stderr)
    gateway = JavaGateway(gateway_parameters=GatewayParameters(port=port, auto_convert=True))
    parser = gateway.jvm.org.apache.spark.sql.execution.SparkSqlParser()
    parser.parsePlan("SELECT 1")  # loads the grammar's classes now, not on the first editor call
    return parser


def answer(parser: Any, line: str) -> dict[str, Any]:
    """The reply to one request line."""
    try:
        request = json.loads(line)
        ident, script = request["id"], request["script"]
        if not isinstance(script, str):
            raise TypeError("script is not a string")
    except (ValueError, KeyError, TypeError) as exc:
        return {"id": None, "error": f"bad request: {exc}"}
    try:
        return {"id": ident, "problems": list(syntax_problems(parser, script))}
    except Exception as exc:  # noqa: BLE001 - any failure of the check is reported, the server keeps serving
        return {"id": ident, "error": redact(f"{type(exc).__name__}: {exc}".splitlines()[0])[:500]}


def serve(parser: Any, requests: TextIO, replies: TextIO) -> None:
    """Answer every request line until stdin closes."""
    replies.write(json.dumps({"ready": True}) + "\n")
    replies.flush()
    for line in requests:
        if line.strip():
            replies.write(json.dumps(answer(parser, line)) + "\n")
            replies.flush()


def main() -> None:
    """Entry point: replies go to the original stdout; everything the JVM prints goes to stderr."""
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # a stray print can never corrupt the reply stream
    serve(spark_parser(), sys.stdin, replies)


if __name__ == "__main__":
    main()
