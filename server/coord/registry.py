"""The process registry: which server processes are alive, by heartbeat.

Each process keeps an entry in the sorted set `processes` (process id -> expiry on Redis's clock)
and a description under `process:<id>` (JSON: pid, replica id, when it started; expires with the
entry), refreshed every `ttl / 3`. `alive()` lists the processes whose heartbeat has not expired: an
owner whose process is not alive will lose its leases within the lease ttl, so a process may use it to
claim a dead process's rooms early or to show operators where connections are.

`MemoryRegistry` is the in-process twin (twins may share a `MemoryRegistryTable`).
"""

from __future__ import annotations

import json
import time
from typing import Any

from ..store.keys import Keys
from .periodic import Periodic

DEFAULT_TTL = 6.0

# KEYS: processes set, process info key. ARGV: process id, ttl ms, info JSON.
_BEAT = """
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZADD', KEYS[1], ms + tonumber(ARGV[2]), ARGV[1])
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[2])
return ms
"""

# KEYS: processes set. Drops expired processes, returns the live ids.
_ALIVE = """
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""


class Registry(Periodic):
    """This process's heartbeat, and the list of live processes.

    `beat()` now (also every `ttl / 3` once started), `alive()` -> process id -> description,
    `close()` stops the heartbeat and removes this process's entry.
    """

    def __init__(self, process_id: str, info: dict[str, Any] | None = None, ttl: float = DEFAULT_TTL) -> None:
        super().__init__()
        if ttl <= 0:
            raise ValueError("registry ttl must be positive")
        self.process_id = process_id
        self.info = {"process": process_id, **(info or {})}
        self.ttl = ttl
        self.interval = ttl / 3

    async def tick(self) -> None:
        """The heartbeat."""
        await self.beat()

    async def beat(self) -> None:
        """Refresh this process's entry."""
        raise NotImplementedError

    async def alive(self) -> dict[str, dict[str, Any]]:
        """Every live process's description."""
        raise NotImplementedError

    async def is_alive(self, process_id: str) -> bool:
        """Whether that process's heartbeat is live."""
        return process_id in await self.alive()

    async def close(self) -> None:
        """Stop the heartbeat and leave the registry (best effort)."""
        await self.stop()
        try:
            await self._leave()
        except Exception:
            return  # the store is gone: the entry expires by itself

    async def _leave(self) -> None:
        raise NotImplementedError


class RedisRegistry(Registry):
    """The registry in Redis (see the module docstring)."""

    def __init__(self, redis: Any, keys: Keys, process_id: str, info: dict[str, Any] | None = None,
                 ttl: float = DEFAULT_TTL) -> None:
        super().__init__(process_id, info, ttl)
        self.redis = redis
        self.keys = keys
        self._ttl_ms = max(1, round(ttl * 1000))
        self._beat_script = redis.register_script(_BEAT)
        self._alive_script = redis.register_script(_ALIVE)

    async def beat(self) -> None:
        """ZADD with a new expiry, and the description with the same expiry."""
        await self._beat_script(keys=[self.keys.processes, self.keys.process_info(self.process_id)],
                                args=[self.process_id, self._ttl_ms, json.dumps(self.info)])

    async def alive(self) -> dict[str, dict[str, Any]]:
        """Live ids, each with its description (`{}` if it expired in between)."""
        ids = [raw.decode() if isinstance(raw, bytes) else str(raw)
               for raw in await self._alive_script(keys=[self.keys.processes])]
        if not ids:
            return {}
        infos = await self.redis.mget([self.keys.process_info(process) for process in ids])
        return {process: (json.loads(info) if info else {}) for process, info in zip(ids, infos, strict=True)}

    async def _leave(self) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrem(self.keys.processes, self.process_id)
            pipe.delete(self.keys.process_info(self.process_id))
            await pipe.execute()


class MemoryRegistryTable:
    """The in-process stand-in: process id -> (monotonic expiry, description)."""

    def __init__(self) -> None:
        self.processes: dict[str, tuple[float, dict[str, Any]]] = {}


class MemoryRegistry(Registry):
    """The registry in process memory."""

    def __init__(self, process_id: str = "local", info: dict[str, Any] | None = None,
                 ttl: float = DEFAULT_TTL, table: MemoryRegistryTable | None = None) -> None:
        super().__init__(process_id, info, ttl)
        self.table = table if table is not None else MemoryRegistryTable()

    async def beat(self) -> None:
        """Refresh the entry."""
        self.table.processes[self.process_id] = (time.monotonic() + self.ttl, dict(self.info))

    async def alive(self) -> dict[str, dict[str, Any]]:
        """Live processes."""
        now = time.monotonic()
        return {process: dict(info)
                for process, (expiry, info) in self.table.processes.items() if expiry > now}

    async def _leave(self) -> None:
        self.table.processes.pop(self.process_id, None)
