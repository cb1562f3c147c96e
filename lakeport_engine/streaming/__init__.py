"""Streaming SQL on Spark Structured Streaming: `INSERT INTO … SELECT … FROM STREAM(…) [EMIT …]`.

Sources (stream catalogs) live in `sources.py`; the statement, EMIT clause, sinks, the query and its events in
the other modules. Imports no Django: it runs inside a Spark driver.
"""
