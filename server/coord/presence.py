"""Shared presence: which seats of a room have a live connection, and on which process.

Each process counts its own connections per (room, seat) and publishes one entry per seat it serves:
member `<seat>@<process id>` of the room's sorted set `{room:<id>}:presence`, scored with its expiry
on Redis's clock (so the processes' clocks do not matter). A heartbeat re-scores the process's entries
every `ttl / 3` (one script call per `scripts.BATCH` rooms); a process that dies stops refreshing and its
entries drop out after `ttl`. A seat is `-1` for a spectator (so "anyone watching?" has an answer too).

Before a room's owner lets a bot take a seat, it asks `seats(room)`: a seat with any live entry is
connected somewhere.

`MemoryPresence` is the in-process twin; twins sharing one `MemoryPresenceTable` behave like
processes sharing one Redis.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from ..store.keys import Keys
from .periodic import Periodic
from .scripts import Call, PipelinedScript, pause_between, slot_batches

SPECTATOR = -1
DEFAULT_TTL = 6.0

# KEYS: presence sets. ARGV: ttl ms, then for each key the number of its members and the members.
# Scores them now + ttl (Redis clock).
_MARK = """
local now = redis.call('TIME')
local expiry = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[1])
local at = 2
for _, key in ipairs(KEYS) do
  local count = tonumber(ARGV[at])
  for i = at + 1, at + count do
    redis.call('ZADD', key, expiry, ARGV[i])
  end
  at = at + count + 1
  redis.call('PEXPIRE', key, ARGV[1])
end
return expiry
"""

# KEYS: the room's presence set. Drops the expired entries, returns the live ones.
_LIVE = """
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms)
return redis.call('ZRANGE', KEYS[1], 0, -1)
"""


def member(seat: int, process_id: str) -> str:
    """The presence entry of one seat on one process."""
    return f"{seat}@{process_id}"


def parse_members(members: list[Any]) -> dict[int, frozenset[str]]:
    """seat -> processes, from presence entries (malformed ones are skipped)."""
    seats: dict[int, set[str]] = {}
    for raw in members:
        text = raw.decode() if isinstance(raw, bytes) else str(raw)
        seat, _, process = text.partition("@")
        try:
            seats.setdefault(int(seat), set()).add(process)
        except ValueError:
            continue
    return {seat: frozenset(processes) for seat, processes in sorted(seats.items())}


class Presence(Periodic):
    """This process's connections per (room, seat), shared with the others.

    - `connect(room, seat)` / `disconnect(room, seat)`: count a connection of this process (the shared
      entry is written when the first arrives and removed when the last leaves).
    - `seats(room)`: seat -> the processes with a live connection on it, over every process.
    - `connected(room, seat)`: whether any process has a live connection on the seat.
    - `start()` begins the heartbeat; `close()` stops it and removes this process's entries.
    """

    def __init__(self, process_id: str, ttl: float = DEFAULT_TTL) -> None:
        super().__init__()
        if ttl <= 0:
            raise ValueError("presence ttl must be positive")
        self.process_id = process_id
        self.ttl = ttl
        self.interval = ttl / 3
        self.local: Counter[tuple[str, int]] = Counter()

    async def connect(self, room_id: str, seat: int) -> None:
        """One more connection of this process on the seat (`SPECTATOR` for a watcher)."""
        self.local[room_id, seat] += 1
        if self.local[room_id, seat] == 1:
            await self._mark(room_id, [seat])

    async def disconnect(self, room_id: str, seat: int) -> None:
        """One connection fewer on the seat; the shared entry goes with the last one."""
        if self.local[room_id, seat] <= 0:
            return
        self.local[room_id, seat] -= 1
        if self.local[room_id, seat] == 0:
            del self.local[room_id, seat]
            await self._unmark(room_id, seat)

    async def connected(self, room_id: str, seat: int) -> bool:
        """Whether a live connection (on any process) holds the seat."""
        return seat in await self.seats(room_id)

    async def seats(self, room_id: str) -> dict[int, frozenset[str]]:
        """seat -> processes with a live connection on it (seats nobody holds are absent)."""
        raise NotImplementedError

    async def tick(self) -> None:
        """The heartbeat: refresh every entry of this process."""
        rooms: dict[str, list[int]] = {}
        for room, seat in self.local:
            rooms.setdefault(room, []).append(seat)
        if rooms:
            await self._mark_many(rooms)

    async def close(self) -> None:
        """Stop the heartbeat and remove this process's entries (best effort)."""
        await self.stop()
        entries, self.local = list(self.local), Counter()
        for room, seat in entries:
            try:
                await self._unmark(room, seat)
            except Exception:
                break  # the store is gone: the entries expire by themselves

    async def _mark(self, room_id: str, seats: list[int]) -> None:
        await self._mark_many({room_id: seats})

    async def _mark_many(self, rooms: dict[str, list[int]]) -> None:
        raise NotImplementedError

    async def _unmark(self, room_id: str, seat: int) -> None:
        raise NotImplementedError


class RedisPresence(Presence):
    """Presence in Redis sorted sets (see the module docstring)."""

    def __init__(self, redis: Any, keys: Keys, process_id: str, ttl: float = DEFAULT_TTL) -> None:
        super().__init__(process_id, ttl)
        self.redis = redis
        self.keys = keys
        self._ttl_ms = max(1, round(ttl * 1000))
        self._mark_many_script = PipelinedScript(redis, _MARK)  # the heartbeat's: no SCRIPT EXISTS per pass
        self._live_script = redis.register_script(_LIVE)

    async def seats(self, room_id: str) -> dict[int, frozenset[str]]:
        """The live entries of the room, expired ones dropped on the way."""
        members = await self._live_script(keys=[self.keys.room_presence(room_id)])
        return parse_members(list(members))

    async def _mark_many(self, rooms: dict[str, list[int]]) -> None:
        steps = slot_batches(list(rooms.items()), lambda item: self.keys.room_presence(item[0]),
                             self._mark_many_script.clustered)

        def call(batch: Sequence[tuple[str, list[int]]]) -> Call:
            args: list[Any] = [self._ttl_ms]
            for _, seats in batch:
                args.append(len(seats))
                args.extend(member(seat, self.process_id) for seat in seats)
            return [self.keys.room_presence(room) for room, _ in batch], args

        def calls() -> Iterator[list[Call]]:
            for step in steps:
                yield [call(batch) for batch in step]

        await self._mark_many_script.run_spread(calls(), pause_between(len(steps), self.interval))

    async def _unmark(self, room_id: str, seat: int) -> None:
        await self.redis.zrem(self.keys.room_presence(room_id), member(seat, self.process_id))


class MemoryPresenceTable:
    """The in-process stand-in for the presence sets: room -> entry -> monotonic expiry."""

    def __init__(self) -> None:
        self.rooms: dict[str, dict[str, float]] = {}


class MemoryPresence(Presence):
    """Presence in process memory (one process, or twins sharing a `MemoryPresenceTable`)."""

    def __init__(self, process_id: str = "local", ttl: float = DEFAULT_TTL,
                 table: MemoryPresenceTable | None = None) -> None:
        super().__init__(process_id, ttl)
        self.table = table if table is not None else MemoryPresenceTable()

    async def seats(self, room_id: str) -> dict[int, frozenset[str]]:
        """The live entries of the room."""
        now = time.monotonic()
        entries = self.table.rooms.get(room_id, {})
        for entry in [entry for entry, expiry in entries.items() if expiry <= now]:
            del entries[entry]
        return parse_members(list(entries))

    async def _mark_many(self, rooms: dict[str, list[int]]) -> None:
        expiry = time.monotonic() + self.ttl
        for room, seats in rooms.items():
            entries = self.table.rooms.setdefault(room, {})
            for seat in seats:
                entries[member(seat, self.process_id)] = expiry

    async def _unmark(self, room_id: str, seat: int) -> None:
        entries = self.table.rooms.get(room_id)
        if entries is not None:
            entries.pop(member(seat, self.process_id), None)
            if not entries:
                del self.table.rooms[room_id]
