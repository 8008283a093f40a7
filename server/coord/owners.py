"""The owner book: which process last took each unfinished room's lease, kept after the lease expires.

A lease says who owns a room *now*, and it vanishes with its owner. That is enough when another process
holds the room in memory (it has connections there: it wants the lease and takes it). It is not when
nobody does, e.g. a table of bots only, or whose players all left, and whose owner died: nobody wants
the room, so its bots and timers would wait for ever. The book keeps the name of the last owner: a
room whose last owner is no longer in the process registry is an orphan, and a live process adopts it
(claims its lease, loads it, runs its bots and timers; see `server/live/adoption.py`). The lease still
decides who runs the room: two processes that adopt the same orphan race for one `SET NX`.

One Redis hash `room_owners` (room id -> process id): written when a process takes a room's lease
(HSET, so the newest owner wins), entry removed when the room ends (HDEL). Reading it is one HGETALL
(the unfinished rooms that ever had an owner).

`MemoryOwners` is the in-process twin (twins may share a `MemoryOwnersTable`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..store.keys import Keys


class Owners:
    """The owner book of one process (see the module docstring)."""

    def __init__(self, process_id: str) -> None:
        self.process_id = process_id

    async def record(self, room_id: str) -> None:
        """This process took the room's lease: it is the room's latest owner."""
        raise NotImplementedError

    async def forget(self, room_id: str) -> None:
        """The room ended: nobody needs to adopt it any more."""
        raise NotImplementedError

    async def book(self) -> dict[str, str]:
        """room id -> its latest owner, for every room in the book."""
        raise NotImplementedError

    async def orphans(self, alive: Iterable[str]) -> list[str]:
        """The rooms whose latest owner is not among the `alive` processes (sorted)."""
        living = set(alive)
        return sorted(room for room, owner in (await self.book()).items() if owner not in living)


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else str(raw)


class RedisOwners(Owners):
    """The book in one Redis hash."""

    def __init__(self, redis: Any, keys: Keys, process_id: str) -> None:
        super().__init__(process_id)
        self.redis = redis
        self.keys = keys

    async def record(self, room_id: str) -> None:
        """HSET."""
        await self.redis.hset(self.keys.room_owners, room_id, self.process_id)

    async def forget(self, room_id: str) -> None:
        """HDEL."""
        await self.redis.hdel(self.keys.room_owners, room_id)

    async def book(self) -> dict[str, str]:
        """HGETALL."""
        found = await self.redis.hgetall(self.keys.room_owners)
        return {_text(room): _text(owner) for room, owner in found.items()}


class MemoryOwnersTable:
    """The in-process stand-in for the hash."""

    def __init__(self) -> None:
        self.owners: dict[str, str] = {}


class MemoryOwners(Owners):
    """The book in process memory (one process, or twins sharing a `MemoryOwnersTable`)."""

    def __init__(self, process_id: str = "local", table: MemoryOwnersTable | None = None) -> None:
        super().__init__(process_id)
        self.table = table if table is not None else MemoryOwnersTable()

    async def record(self, room_id: str) -> None:
        """Set the entry."""
        self.table.owners[room_id] = self.process_id

    async def forget(self, room_id: str) -> None:
        """Drop the entry."""
        self.table.owners.pop(room_id, None)

    async def book(self) -> dict[str, str]:
        """A copy of the entries."""
        return dict(self.table.owners)
