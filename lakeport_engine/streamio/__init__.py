"""Stream I/O below the bindings: declared stream tables, record parsing, and the Redis Streams and NATS JetStream
readers (Spark Python data sources). Knows nothing of catalogs or queries."""
