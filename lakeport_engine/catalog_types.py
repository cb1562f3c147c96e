"""The catalog types this runtime can bind, by key: the one list both sides of the platform check against."""

from __future__ import annotations

CATALOG_TYPE_KEYS: tuple[str, ...] = ("jdbc", "hive", "delta", "files", "kafka", "redis_streams", "nats_jetstream")
