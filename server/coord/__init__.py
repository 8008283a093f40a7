"""Coordination of several server processes on one Redis: room owner leases, fan-out of
committed changes, shared presence, a process registry, and the owner book (who last owned each
unfinished room, so that a dead owner's rooms are found). Each has a Redis implementation and an
in-memory twin (one process is trivially the owner of everything; twins sharing a `MemoryHub` act
like processes sharing one Redis, for tests).

None of it knows about rooms' contents: the live room plugs these in as listeners.

    coord = open_coordination("redis://127.0.0.1:6379/0?prefix=whist:", new_process_id("r1"))
    await coord.start()
    if await coord.leases.acquire(room_id): ...           # this process runs the room's bots/timers
    await coord.fanout.subscribe(room_id, on_change)     # changes committed elsewhere
    await coord.fanout.publish(room_id, {"version": 7})  # a change committed here
    await coord.presence.connect(room_id, seat)          # a connection of this process sits there
    await coord.close()                                  # releases leases, removes presence
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass, field
from typing import Any

from .fanout import Change, Fanout, Listener, MemoryFanout, MemoryFanoutHub, RedisFanout, ResyncCallback
from .leases import LeaseCallback, Leases, MemoryLeases, MemoryLeaseTable, RedisLeases
from .owners import MemoryOwners, MemoryOwnersTable, Owners, RedisOwners
from .presence import SPECTATOR, MemoryPresence, MemoryPresenceTable, Presence, RedisPresence
from .registry import MemoryRegistry, MemoryRegistryTable, RedisRegistry, Registry

# The coordination client's connections (one of them the subscriber's), and how long a command waits for
# a free one before it fails as if Redis were away.
COORDINATION_CONNECTIONS = 100
POOL_WAIT_SECONDS = 5.0


def new_process_id(replica_id: str | None = None) -> str:
    """A process id unique to this run of this process: `<replica>:<pid>:<random>` (a restarted
    replica is a new process: it must not inherit the leases of the one that died)."""
    return f"{replica_id or 'local'}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass
class MemoryHub:
    """Shared state of in-memory twins: what one Redis would hold for several processes."""

    leases: MemoryLeaseTable = field(default_factory=MemoryLeaseTable)
    fanout: MemoryFanoutHub = field(default_factory=MemoryFanoutHub)
    presence: MemoryPresenceTable = field(default_factory=MemoryPresenceTable)
    registry: MemoryRegistryTable = field(default_factory=MemoryRegistryTable)
    owners: MemoryOwnersTable = field(default_factory=MemoryOwnersTable)


@dataclass
class Coordination:
    """The four primitives of one process, started and closed together."""

    process_id: str
    leases: Leases
    fanout: Fanout
    presence: Presence
    registry: Registry
    redis: Any = None  # the Redis client they share (None for the memory twins)
    owners: Owners = field(default_factory=MemoryOwners)  # the last owner of each unfinished room

    async def start(self, on_acquired: LeaseCallback | None = None, on_lost: LeaseCallback | None = None,
                    on_resync: ResyncCallback | None = None) -> None:
        """Register, connect the subscriber, and start the renew/heartbeat passes. The callbacks are
        the user's (the live layer's ownership and following): a lease taken by a pass or lost, and
        the subscriber back after it was away (see `Leases`, `Fanout`)."""
        await self.registry.beat()
        await self.fanout.start(on_resync=on_resync)
        self.registry.start()
        self.leases.start(on_acquired, on_lost)
        self.presence.start()

    async def close(self) -> None:
        """Release every lease, remove presence, leave the registry, disconnect."""
        await self.leases.close()
        await self.presence.close()
        await self.fanout.close()
        await self.registry.close()
        if self.redis is not None:
            await self.redis.aclose()


def memory_coordination(process_id: str = "local", hub: MemoryHub | None = None,
                        lease_ttl: float = 3.0, presence_ttl: float = 6.0,
                        info: dict[str, Any] | None = None) -> Coordination:
    """In-memory twins (one process: it owns every room it asks for)."""
    hub = hub if hub is not None else MemoryHub()
    return Coordination(
        process_id,
        MemoryLeases(process_id, lease_ttl, hub.leases),
        MemoryFanout(process_id, hub.fanout),
        MemoryPresence(process_id, presence_ttl, hub.presence),
        MemoryRegistry(process_id, info, presence_ttl, hub.registry),
        owners=MemoryOwners(process_id, hub.owners),
    )


def redis_coordination(url: str, process_id: str, prefix: str | None = None, lease_ttl: float = 3.0,
                       presence_ttl: float = 6.0, info: dict[str, Any] | None = None) -> Coordination:
    """The Redis primitives on one client (`url` as the store's: `redis://H:P/DB[?prefix=P]` or
    `redis+sentinel://H:P[,H:P]/SERVICE[?prefix=P]`: then the client follows the primary, or
    `redis-cluster://H:P[,H:P...][?prefix=P]`: sharded pub/sub, per-slot script calls)."""
    from ..store.connect import parse_redis_url, redis_client
    from ..store.keys import Keys
    from .sharded_fanout import ClusterFanout

    address = parse_redis_url(url)
    keys = Keys(prefix if prefix is not None else address.prefix)
    # Bytes in and out (fan-out carries msgpack); short timeouts so a lost Redis shows up quickly. A
    # burst of work (a thousand tables opening or ending at once) waits for a free connection of the
    # pool instead of failing with MaxConnectionsError: a lease pass that failed so would drop every
    # lease of a healthy process.
    redis = redis_client(address, decode_responses=False, socket_connect_timeout=2, socket_timeout=5,
                         max_connections=COORDINATION_CONNECTIONS, pool_timeout=POOL_WAIT_SECONDS)
    return Coordination(
        process_id,
        RedisLeases(redis, keys, process_id, lease_ttl),
        ClusterFanout(redis, keys, process_id) if address.cluster else RedisFanout(redis, keys, process_id),
        RedisPresence(redis, keys, process_id, presence_ttl),
        RedisRegistry(redis, keys, process_id, info, presence_ttl),
        redis,
        RedisOwners(redis, keys, process_id),
    )


def open_coordination(store_url: str | None, process_id: str, **options: Any) -> Coordination:
    """The primitives that match a store URL: `memory://` -> twins, `redis://...` -> Redis."""
    if store_url is None or store_url in ("", "memory", "memory://"):
        return memory_coordination(process_id, **options)
    return redis_coordination(store_url, process_id, **options)


__all__ = [
    "SPECTATOR", "Change", "Coordination", "Fanout", "Leases", "Listener", "MemoryHub", "Owners",
    "Presence", "Registry", "memory_coordination", "new_process_id", "open_coordination",
    "redis_coordination",
]
