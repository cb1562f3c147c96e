"""The embedded Iceberg connector: Iceberg catalogs in Spark SQL without iceberg-spark jars (docs/iceberg.md).

pyiceberg owns the table metadata (its SQL catalog, kept in a SQLite file inside the warehouse); Spark's own
parquet reader and writer move the data. `EmbeddedIceberg` (connector.py) is what the resolver talks to.
"""
