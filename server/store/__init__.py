"""Room storage: the interface, the embedded in-memory store and the Redis store."""

from __future__ import annotations

from .base import Store, StoredRoom, VersionConflictError
from .memory import MemoryStore


def open_store(url: str | None) -> Store:
    """`None`/`memory://` -> the in-memory store; `redis://...` (optionally `?prefix=p`) -> Redis."""
    if url is None or url in ("", "memory", "memory://"):
        return MemoryStore()
    if url.startswith(("redis://", "rediss://", "unix://")):
        from .redis import RedisStore

        return RedisStore(url)
    raise ValueError(f"unknown store URL {url!r}: use memory:// or redis://HOST:PORT/DB")


__all__ = ["MemoryStore", "Store", "StoredRoom", "VersionConflictError", "open_store"]
