"""How each catalog type binds into a Spark session: jdbc → JDBCTableCatalog, hive → the session catalog,
delta → the embedded connector or the JVM DeltaCatalog. Pure conf-building functions live next to the code
that applies them so they can be unit-tested without Spark."""
