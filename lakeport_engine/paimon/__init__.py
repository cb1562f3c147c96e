"""The embedded Paimon connector: Paimon catalogs in Spark SQL without paimon-spark jars (docs/paimon.md).

pypaimon owns the metadata and the merge-on-read of primary-key tables; Spark distributes the work: a Python data
source whose partitions are pypaimon's splits reads (source.py), executors write with pypaimon's table writer and
the driver commits their commit messages once (write.py). `EmbeddedPaimon` (connector.py) is what the resolver
talks to.
"""
