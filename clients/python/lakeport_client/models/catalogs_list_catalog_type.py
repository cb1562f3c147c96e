from enum import StrEnum


class CatalogsListCatalogType(StrEnum):
    DELTA = "delta"
    FILES = "files"
    HIVE = "hive"
    ICEBERG = "iceberg"
    JDBC = "jdbc"
    KAFKA = "kafka"
    NATS_JETSTREAM = "nats-jetstream"
    PAIMON = "paimon"
    REDIS_STREAMS = "redis-streams"

    def __str__(self) -> str:
        return str(self.value)
