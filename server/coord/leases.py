"""Room owner leases: at most one process owns a room at a time, and runs its bots and timers.

A lease is a Redis string `{room:<id>}:owner` = process id, set with `SET NX PX ttl`. The owner renews
all its leases every `ttl / 3` (a Lua script over up to `scripts.BATCH` leases a call, which extends a lease
only if it still names this process) and releases them on a clean shutdown (a Lua script that deletes
only its own lease).
A process that dies stops renewing: its leases expire after `ttl` and any process that *wants* the
room (it has connections there) takes it at its next pass, so a dead owner's rooms move within
`ttl + ttl / 3` (4 s with the default 3 s).

Safety when Redis is unreachable: a process counts a lease as held only until `ttl` after the last
renewal Redis confirmed (measured from when the request was sent); past that it reports the lease as
lost, since another process may by then hold it.

`MemoryLeases` is the in-process twin: alone, a process trivially owns every room it asks for; twins
sharing one `MemoryLeaseTable` behave like processes sharing one Redis (tests).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from ..store.keys import Keys
from .periodic import Periodic
from .scripts import PipelinedScript, pause_between, slot_batches

LeaseCallback = Callable[[str], Awaitable[None] | None]

DEFAULT_TTL = 3.0

# KEYS: owner keys. ARGV: process id, ttl ms. Per key: 1 if extended, 0 if the lease names someone else.
_RENEW = """
local answers = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    answers[i] = redis.call('PEXPIRE', key, ARGV[2])
  else
    answers[i] = 0
  end
end
return answers
"""

# KEYS: owner keys. ARGV: process id, ttl ms. Per key: 1 if the lease is (now) ours: taken if free,
# extended if already ours; 0 if it names another process. `_take` too, so that claims batch.
_CLAIM = """
local answers = {}
for i, key in ipairs(KEYS) do
  if redis.call('SET', key, ARGV[1], 'NX', 'PX', ARGV[2]) then
    answers[i] = 1
  elseif redis.call('GET', key) == ARGV[1] then
    answers[i] = redis.call('PEXPIRE', key, ARGV[2])
  else
    answers[i] = 0
  end
end
return answers
"""

# KEYS: owner key. ARGV: process id. 1 if deleted, 0 if the lease names someone else (or none).
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


async def _call(callback: LeaseCallback | None, room_id: str) -> None:
    if callback is not None:
        result = callback(room_id)
        if inspect.isawaitable(result):
            await result


class Leases(Periodic):
    """The leases one process holds and wants. Subclasses talk to the backing store.

    - `acquire(room)`: take the lease if it is free (or already ours); True if we hold it now.
    - `want(room)` / `unwant(room)`: rooms to take as soon as their lease is free (checked every pass).
    - `release(room)`: give it up (only if ours). `owner(room)`: who holds it (None: nobody).
    - `held`: the rooms this process owns, as far as it can be sure.
    - `on_acquired(room)` / `on_lost(room)`: called when a lease is taken by a pass (not by an explicit
      `acquire`) and when a held lease turns out to be gone or may have expired.
    - `start()` begins the renew/claim passes; `close()` stops them and releases every held lease.
    """

    def __init__(self, process_id: str, ttl: float = DEFAULT_TTL,
                 on_acquired: LeaseCallback | None = None, on_lost: LeaseCallback | None = None) -> None:
        super().__init__()
        if ttl <= 0:
            raise ValueError("lease ttl must be positive")
        self.process_id = process_id
        self.ttl = ttl
        self.interval = ttl / 3
        self.on_acquired = on_acquired
        self.on_lost = on_lost
        self._confirmed: dict[str, float] = {}  # held room -> monotonic time its last renewal was sent
        self._wanted: set[str] = set()

    def start(self, on_acquired: LeaseCallback | None = None, on_lost: LeaseCallback | None = None) -> None:
        """Begin the renew/claim passes; `on_acquired` / `on_lost`, if given, are called from then on."""
        if on_acquired is not None:
            self.on_acquired = on_acquired
        if on_lost is not None:
            self.on_lost = on_lost
        super().start()

    @property
    def held(self) -> frozenset[str]:
        """The rooms this process owns (leases confirmed less than `ttl` ago)."""
        now = time.monotonic()
        return frozenset(room for room, since in self._confirmed.items() if now - since < self.ttl)

    @property
    def wanted(self) -> frozenset[str]:
        """The rooms this process claims whenever their lease is free."""
        return frozenset(self._wanted)

    def holds(self, room_id: str) -> bool:
        """Whether this process owns the room."""
        since = self._confirmed.get(room_id)
        return since is not None and time.monotonic() - since < self.ttl

    def want(self, room_id: str) -> None:
        """Take this room's lease whenever it is free (the process has a stake in the room)."""
        self._wanted.add(room_id)

    def unwant(self, room_id: str) -> None:
        """Stop claiming the room (a lease already held is kept until released)."""
        self._wanted.discard(room_id)

    async def acquire(self, room_id: str) -> bool:
        """Take the room's lease if it is free or already ours; True if this process owns it now."""
        sent = time.monotonic()
        if await self._take(room_id):
            self._confirmed[room_id] = sent
            return True
        return False

    async def release(self, room_id: str) -> bool:
        """Give the lease up (only if it is still ours); True if it was released."""
        self._confirmed.pop(room_id, None)
        self._wanted.discard(room_id)
        return await self._drop(room_id)

    async def owner(self, room_id: str) -> str | None:
        """The process that holds the room's lease, or None."""
        return await self._owner(room_id)

    async def tick(self) -> None:
        """One pass: renew every held lease, report lost ones, claim the wanted rooms that are free."""
        sent = time.monotonic()
        held = list(self._confirmed)
        try:
            renewed = await self._renew(held) if held else {}
        except Exception:
            # Nothing confirmed: leases we can no longer be sure of are lost.
            for room in held:
                if sent - self._confirmed.get(room, sent) >= self.ttl:
                    await self._lose(room)
            raise
        answered = time.monotonic()
        for room, still_ours in renewed.items():
            if still_ours:
                previous = self._confirmed.get(room)
                self._confirmed[room] = sent
                if previous is not None and answered - previous >= self.ttl:
                    # The answer came after the lease had lapsed here (a slow store, a starved event
                    # loop): meanwhile `holds` said no, and the bots and timers that asked stopped. The
                    # store kept the lease (its expiry runs from when it ran the renewal): say it is ours
                    # again, as after a take, or the room waits for bots that never move.
                    await _call(self.on_acquired, room)
            else:
                await self._lose(room)
        claims = sorted(self._wanted - set(self._confirmed))
        if not claims:
            return
        # One round trip for every claim of the pass: a process that follows rooms it does not own
        # (its players' rooms, owned elsewhere) asks for each of them every pass.
        taken = await self._take_many(claims)
        for room in claims:
            if not taken.get(room):
                continue
            known = room in self._confirmed  # taken by an explicit `acquire` meanwhile
            self._confirmed[room] = sent
            if not known:
                await _call(self.on_acquired, room)

    async def close(self) -> None:
        """Stop renewing and release every held lease (best effort: Redis may be down)."""
        await self.stop()
        rooms, self._confirmed = list(self._confirmed), {}
        self._wanted.clear()
        for room in rooms:
            try:
                await self._drop(room)
            except Exception:
                break  # the store is gone: the leases expire by themselves

    async def _lose(self, room_id: str) -> None:
        if self._confirmed.pop(room_id, None) is not None:
            await _call(self.on_lost, room_id)

    # ---- the backing store

    async def _take(self, room_id: str) -> bool:
        raise NotImplementedError

    async def _renew(self, rooms: Iterable[str]) -> dict[str, bool]:
        raise NotImplementedError

    async def _take_many(self, rooms: Iterable[str]) -> dict[str, bool]:
        """`_take` of several rooms (subclasses may do it in one round trip)."""
        return {room: await self._take(room) for room in rooms}

    async def _drop(self, room_id: str) -> bool:
        raise NotImplementedError

    async def _owner(self, room_id: str) -> str | None:
        raise NotImplementedError


class RedisLeases(Leases):
    """Leases in Redis (see the module docstring)."""

    def __init__(self, redis: Any, keys: Keys, process_id: str, ttl: float = DEFAULT_TTL,
                 on_acquired: LeaseCallback | None = None, on_lost: LeaseCallback | None = None) -> None:
        super().__init__(process_id, ttl, on_acquired, on_lost)
        self.redis = redis
        self.keys = keys
        self._ttl_ms = max(1, round(ttl * 1000))
        self._release_script = redis.register_script(_RELEASE)
        # The passes' scripts, pipelined by SHA (no `SCRIPT EXISTS` round trip per pass).
        self._renew_many = PipelinedScript(redis, _RENEW)
        self._claim_many = PipelinedScript(redis, _CLAIM)

    async def _take(self, room_id: str) -> bool:
        return (await self._take_many([room_id]))[room_id]  # the claim script: taken, or extended if ours

    async def _renew(self, rooms: Iterable[str]) -> dict[str, bool]:
        return await self._per_room(self._renew_many, list(rooms))

    async def _take_many(self, rooms: Iterable[str]) -> dict[str, bool]:
        return await self._per_room(self._claim_many, list(rooms))

    async def _per_room(self, script: PipelinedScript, rooms: list[str]) -> dict[str, bool]:
        """Run a per-key script over the rooms' owner keys, a batch a call; room -> its answer."""
        steps = slot_batches(rooms, self.keys.room_owner, script.clustered)
        calls = ([([self.keys.room_owner(room) for room in batch], [self.process_id, self._ttl_ms])
                  for batch in step] for step in steps)
        results = await script.run_spread(calls, pause_between(len(steps), self.interval))
        sliced = [batch for step in steps for batch in step]
        return {room: bool(answer) for batch, answers in zip(sliced, results, strict=True)
                for room, answer in zip(batch, answers, strict=True)}

    async def _drop(self, room_id: str) -> bool:
        return bool(await self._release_script(keys=[self.keys.room_owner(room_id)], args=[self.process_id]))

    async def _owner(self, room_id: str) -> str | None:
        found = await self.redis.get(self.keys.room_owner(room_id))
        if found is None:
            return None
        return found.decode() if isinstance(found, bytes) else str(found)


class MemoryLeaseTable:
    """The in-process stand-in for the Redis lease keys: room -> (owner, monotonic expiry)."""

    def __init__(self) -> None:
        self.leases: dict[str, tuple[str, float]] = {}

    def owner(self, room_id: str) -> str | None:
        """The live lease's owner, if any."""
        found = self.leases.get(room_id)
        if found is None or found[1] <= time.monotonic():
            self.leases.pop(room_id, None)
            return None
        return found[0]


class MemoryLeases(Leases):
    """Leases in process memory (one process, or several twins sharing a `MemoryLeaseTable`)."""

    def __init__(self, process_id: str = "local", ttl: float = DEFAULT_TTL,
                 table: MemoryLeaseTable | None = None,
                 on_acquired: LeaseCallback | None = None, on_lost: LeaseCallback | None = None) -> None:
        super().__init__(process_id, ttl, on_acquired, on_lost)
        self.table = table if table is not None else MemoryLeaseTable()

    async def _take(self, room_id: str) -> bool:
        if self.table.owner(room_id) not in (None, self.process_id):
            return False
        self.table.leases[room_id] = (self.process_id, time.monotonic() + self.ttl)
        return True

    async def _renew(self, rooms: Iterable[str]) -> dict[str, bool]:
        answers = {}
        for room in rooms:
            ours = self.table.owner(room) == self.process_id
            if ours:
                self.table.leases[room] = (self.process_id, time.monotonic() + self.ttl)
            answers[room] = ours
        return answers

    async def _drop(self, room_id: str) -> bool:
        if self.table.owner(room_id) != self.process_id:
            return False
        del self.table.leases[room_id]
        return True

    async def _owner(self, room_id: str) -> str | None:
        return self.table.owner(room_id)
