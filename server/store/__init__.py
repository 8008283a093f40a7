"""Room storage: the interface, the embedded in-memory store and the Redis store."""

from __future__ import annotations

from .base import NotReplicatedError, Store, StoredRoom, VersionConflictError
from .memory import MemoryStore


def open_store(url: str | None) -> Store:
    """`None`/`memory://` -> the in-memory store; `redis://...` (optionally `?prefix=p`) or
    `redis+sentinel://HOST:PORT[,HOST:PORT]/SERVICE` or `redis-cluster://HOST:PORT[,HOST:PORT]` -> Redis
    (server/store/connect.py)."""
    if url is None or url in ("", "memory", "memory://"):
        return MemoryStore()
    from .connect import is_redis_url

    if is_redis_url(url):
        from .redis import RedisStore

        return RedisStore(url)
    raise ValueError(f"unknown store URL {url!r}: use memory://, redis://HOST:PORT/DB or "
                     "redis+sentinel://HOST:PORT[,HOST:PORT...]/SERVICE or redis-cluster://HOST:PORT[,HOST:PORT...]")


__all__ = ["MemoryStore", "NotReplicatedError", "Store", "StoredRoom", "VersionConflictError", "open_store"]
