"""Several server processes on one store (issue 10): the live rooms wired to the coordination
primitives of `server/coord/` (owner leases, fan-out, shared presence, process registry).

- **Owner.** Every process that holds an unfinished room in memory wants its lease; the one holding it
  runs the room's bots and timers (`BotDriver.may_run`, `GraceTimers.may_run`). When the owner dies its
  lease expires and another process that holds the room takes it (`on_acquired`): its bots and timers
  resume there.
- **Players' commands** are applied by the process their connection landed on, through the room's
  compare-and-set (not forwarded to the owner: no extra hop, and no dependency on the owner being
  alive; a lost race is a version conflict, reloaded and retried by `Tables`).
- **Fan-out.** Every change committed here (stored, or presence only) is published on the room's
  channel with the stored state it wrote; a process subscribed to the room (it has connections there,
  or owns it) moves its copy on by the logged entries (`table.advance`), or reloads from the store when
  a version was skipped (pub/sub is at most once) or after its subscriber reconnected (`on_resync`),
  then hands the change to its own listeners: the outbox pushes it through the one filter.
- **Presence.** A published change of presence carries the publisher's connected seats and spectators
  in the room; the others keep them per process (`Presence.remote_seats`), so no process lets a bot
  take the seat of a player connected elsewhere. Entries of processes that stop beating are dropped.
  `coord.presence` (shared, with expiry) is read when a process starts serving a room.
- **Lobby.** The lobby index is in the store; a change of a lobby line is announced on one channel so
  that every process pushes the lobby to its subscribers.

With the in-memory twins (`memory_coordination`, the default of a single process) this process owns
every room it holds and publishes to nobody.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from typing import Any

from ..coord import SPECTATOR, Change, Coordination
from ..coord.fanout import MemoryFanout
from ..table import advance, facts, presence, to_stored
from .bots import BotDriver
from .change import JSON, CommittedChange, RoomListener
from .lobby import Lobby
from .registry import RoomRegistry
from .room import LiveRoom
from .timers import GraceTimers

log = logging.getLogger("whist.shared")

LOBBY_CHANNEL = "!lobby"  # not a room id (room ids are letters and digits)
RECONCILE_SECONDS = 2.0  # how often presence of processes that stopped beating is dropped

Remote = dict[str, tuple[frozenset[int], int]]  # process id -> (its connected seats, its spectators)


class SharedRooms(RoomListener):
    """The wiring of one process's rooms to the others (see the module docstring)."""

    def __init__(self, coord: Coordination, registry: RoomRegistry, bots: BotDriver, timers: GraceTimers,
                 lobby: Lobby) -> None:
        self.coord = coord
        self.registry = registry
        self.bots = bots
        self.timers = timers
        self.lobby = lobby
        self.remote: dict[str, Remote] = {}  # room -> the other processes' presence there
        self.subscribed: set[str] = set()
        self._outgoing: asyncio.Queue[tuple[str, JSON, tuple[str, int] | None]] = asyncio.Queue()
        self._inbox: dict[str, collections.deque[Change]] = {}
        self._draining: dict[str, asyncio.Task[None]] = {}
        self._remote_now: set[str] = set()  # rooms whose received change is being announced here
        self._lobby_lines: dict[str, JSON | None] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._spawned: set[asyncio.Task[None]] = set()
        self._started = False
        coord.leases.on_acquired = self._acquired
        coord.leases.on_lost = self._lost
        coord.fanout.on_resync = self._resync
        bots.may_run = self.owns
        timers.may_run = self.owns

    # ---------------------------------------------------------------- life cycle

    async def start(self) -> None:
        """Start the coordination (once) and the publisher and presence passes."""
        if self._started:
            return
        self._started = True
        await self.coord.start()
        await self.coord.fanout.subscribe(LOBBY_CHANNEL, self._lobby_ping)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._publish_loop(), name="shared-publisher"),
                       loop.create_task(self._reconcile_loop(), name="shared-presence")]

    async def close(self) -> None:
        """Send what is queued (briefly), stop, release every lease and presence entry."""
        if not self._started:
            return
        self._started = False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._outgoing.join(), 2.0)
        for task in (*self._tasks, *self._draining.values(), *self._spawned):
            task.cancel()
        await asyncio.gather(*self._tasks, *self._draining.values(), *self._spawned, return_exceptions=True)
        await self.coord.close()

    @property
    def process_id(self) -> str:
        """This process's id among those on the store."""
        return self.coord.process_id

    def owns(self, room: LiveRoom) -> bool:
        """Whether this process owns the room (runs its bots and timers)."""
        return self.coord.leases.holds(room.room_id)

    # ---------------------------------------------------------------- rooms served here

    async def adopt(self, room: LiveRoom, new: bool = False) -> None:
        """A room just created (`new`) or loaded here: claim it (now, and whenever its lease is free)."""
        await self.start()
        if room.over:
            return
        self.coord.leases.want(room.room_id)
        try:
            taken = await self.coord.leases.acquire(room.room_id)
        except Exception as problem:  # the store is away: the lease passes will claim it later
            log.warning("room %s: lease not taken: %s", room.room_id, type(problem).__name__)
            taken = False
        if not taken and room.room_id not in self.subscribed:
            room.stale = True  # another process runs it: this copy is not told of changes
            return
        if taken:
            if new:  # nobody else knows the room yet: nothing to reload
                self.subscribed.add(room.room_id)
                await self.coord.fanout.subscribe(room.room_id, self._received)
            await self._took(room)

    async def attach(self, room: LiveRoom) -> None:
        """A connection is about to enter the room here: follow its changes, and be current."""
        await self.start()
        if room.room_id in self.subscribed:
            return
        await self._subscribe(room)

    async def detach(self, room: LiveRoom) -> None:
        """A connection left the room here: stop following it when nothing here needs it."""
        if room.members or self.owns(room) or room.room_id not in self.subscribed:
            return
        self.subscribed.discard(room.room_id)
        await self.coord.fanout.unsubscribe(room.room_id, self._received)
        room.stale = True  # no longer told of changes: reload before using it again
        self.remote.pop(room.room_id, None)
        if room.over:
            self.coord.leases.unwant(room.room_id)

    def closed(self, room: LiveRoom) -> None:
        """The room left this process's memory: give up its lease and its channel."""
        self.coord.leases.unwant(room.room_id)
        self.remote.pop(room.room_id, None)
        self._lobby_lines.pop(room.room_id, None)
        if self._started:
            self._spawn(self._forget(room))

    async def _forget(self, room: LiveRoom) -> None:
        if room.room_id in self.subscribed:
            self.subscribed.discard(room.room_id)
            await self.coord.fanout.unsubscribe(room.room_id, self._received)
        with contextlib.suppress(Exception):
            await self.coord.leases.release(room.room_id)

    async def _subscribe(self, room: LiveRoom) -> None:
        """Subscribe first, then reload: a change published in between is then either in the stored
        state or received (and skipped if older)."""
        self.subscribed.add(room.room_id)
        await self.coord.fanout.subscribe(room.room_id, self._received)
        async with room.lock:
            try:
                await room.reload()
            except Exception:
                log.exception("room %s: reload failed", room.room_id)
                room.stale = True
            await self._presence_from_store(room)

    async def _took(self, room: LiveRoom) -> None:
        """This process owns the room now: follow it, and run its bots and timers."""
        if room.room_id not in self.subscribed:
            await self._subscribe(room)
        self.bots.kick(room)
        for seat in list(room.table.presence.away_since):
            self.timers.arm(room, seat)

    async def _acquired(self, room_id: str) -> None:
        room = self.registry.held(room_id)
        if room is None:
            await self.coord.leases.release(room_id)
            return
        log.info("room taken over", extra={"fields": {"room": room_id, "process": self.process_id}})
        await self._took(room)

    async def _lost(self, room_id: str) -> None:
        room = self.registry.held(room_id)
        if room is None:
            return
        log.warning("room lease lost", extra={"fields": {"room": room_id, "process": self.process_id}})
        self.bots.closed(room)
        self.timers.closed(room)
        await self.detach(room)

    # ---------------------------------------------------------------- publishing

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """Publish a change committed here (not one received from another process)."""
        if room.room_id in self._remote_now or not self._started:
            return
        if not change.stored and change.presence is None and not change.events:
            return  # a reload here, nothing of this process's to tell
        seat_change: tuple[str, int] | None = None
        if change.presence is not None:
            for kind in ("arrived", "departed"):
                if kind in change.presence:
                    seat = change.presence[kind]
                    seat_change = (kind, SPECTATOR if seat is None else int(seat))
        if self._alone(room.room_id):
            if seat_change is not None:
                self._outgoing.put_nowait((room.room_id, {}, seat_change))
            return
        payload: JSON = {"change": change.to_json()}
        if change.stored:
            payload["state"] = to_stored(room.table)
        if change.presence is not None:
            payload["here"] = self._here(room)
        self._outgoing.put_nowait((room.room_id, payload, seat_change))
        if change.stored:
            line = facts.lobby_entry(room.table)
            if room.room_id not in self._lobby_lines or line != self._lobby_lines[room.room_id]:
                self._lobby_lines[room.room_id] = line
                self.lobby_changed()

    def lobby_changed(self) -> None:
        """Tell every process that a lobby line changed (they push the lobby to their subscribers)."""
        if self._started and not isinstance(self.coord.fanout, MemoryFanout):
            self._outgoing.put_nowait((LOBBY_CHANNEL, {"lobby": True}, None))

    def _alone(self, room_id: str) -> bool:
        """In-memory twins with no other process on the room: nobody to publish to."""
        fanout = self.coord.fanout
        return isinstance(fanout, MemoryFanout) and fanout.hub.subscribers.get(room_id, set()) <= {fanout}

    @staticmethod
    def _here(room: LiveRoom) -> JSON:
        table = room.table
        return {"seats": sorted(facts.local_seats(table)), "spectators": table.presence.spectators}

    async def _publish_loop(self) -> None:
        """One sender, so that a room's changes leave in the order they were committed. What queued up
        meanwhile goes out together: the changes between two presence updates in one pipeline."""
        while True:
            batch = [await self._outgoing.get()]
            while not self._outgoing.empty():
                batch.append(self._outgoing.get_nowait())
            changes: list[tuple[str, JSON]] = []
            try:
                for room_id, payload, seat_change in batch:
                    if seat_change is not None:
                        await self._publish(changes)
                        kind, seat = seat_change
                        if kind == "arrived":
                            await self.coord.presence.connect(room_id, seat)
                        else:
                            await self.coord.presence.disconnect(room_id, seat)
                    if payload:
                        changes.append((room_id, payload))
                await self._publish(changes)
            except Exception as problem:  # Redis away: receivers catch up on their next change/resync
                log.warning("publish failed", extra={"fields": {"rooms": sorted({item[0] for item in batch}),
                                                               "error": type(problem).__name__}})
            finally:
                for _ in batch:
                    self._outgoing.task_done()

    async def _publish(self, changes: list[tuple[str, JSON]]) -> None:
        """Publish the changes gathered so far, in order, and forget them."""
        if changes:
            batch = changes.copy()
            changes.clear()
            await self.coord.fanout.publish_many(batch)

    # ---------------------------------------------------------------- receiving

    def _lobby_ping(self, message: Change) -> None:
        self.lobby.changed()

    def _received(self, message: Change) -> None:
        """A change from another process: handled in order, one room at a time."""
        room_id = message.room_id
        self._inbox.setdefault(room_id, collections.deque()).append(message)
        task = self._draining.get(room_id)
        if task is None or task.done():
            self._draining[room_id] = asyncio.get_running_loop().create_task(self._drain(room_id))

    async def _drain(self, room_id: str) -> None:
        inbox = self._inbox.get(room_id)
        while inbox:
            message = inbox.popleft()
            try:
                await self._apply_received(room_id, message)
            except Exception:
                log.exception("room %s: a received change failed", room_id)
        self._inbox.pop(room_id, None)

    async def _apply_received(self, room_id: str, message: Change) -> None:
        room = self.registry.held(room_id)
        if room is None or room_id not in self.subscribed:
            return
        data = message.change
        change = CommittedChange.from_json(data["change"])
        async with room.lock:
            newly_away: list[int] = []
            here = data.get("here")
            if isinstance(here, dict):
                self.remote.setdefault(room_id, {})[message.origin] = (
                    frozenset(int(seat) for seat in here.get("seats", [])), int(here.get("spectators", 0)))
                newly_away = self._sync(room)
            if change.stored:
                if change.version <= room.version and not room.stale:
                    # Already here (a reload after a lost race brought it): only its presence is news.
                    if not isinstance(here, dict):
                        return
                    change = CommittedChange(room_id, room.version, presence=change.presence, stored=False)
                elif change.version == room.version + 1 and not room.stale and "state" in data:
                    room.table = advance(room.table, data["state"], change.version, change.entries)
                else:
                    await self._reload(room)
            self._announce(room, change)
        for seat in newly_away:
            self.timers.arm(room, seat)

    async def _reload(self, room: LiveRoom) -> None:
        try:
            await room.reload()
        except Exception:
            log.exception("room %s: reload failed", room.room_id)
            room.stale = True

    def _announce(self, room: LiveRoom, change: CommittedChange) -> None:
        """Hand a change made elsewhere to this process's listeners (not published again)."""
        self._remote_now.add(room.room_id)
        try:
            room.announce(change)
        finally:
            self._remote_now.discard(room.room_id)

    def _sync(self, room: LiveRoom) -> list[int]:
        """Set the room's remote presence from `self.remote` (under the room's lock); returns the
        seats left with no connection anywhere."""
        entries = self.remote.get(room.room_id, {})
        seats = frozenset().union(*(seats for seats, _ in entries.values())) if entries else frozenset()
        spectators = sum(count for _, count in entries.values())
        outcome, newly_away = presence.sync_remote(room.table, seats, spectators, time.monotonic())
        room.table = outcome.table
        return newly_away

    async def _presence_from_store(self, room: LiveRoom) -> None:
        """The other processes' presence in the room, from the shared presence sets (under the lock)."""
        try:
            seats = await self.coord.presence.seats(room.room_id)
        except Exception as problem:
            log.warning("room %s: presence not read: %s", room.room_id, type(problem).__name__)
            return
        known = self.remote.get(room.room_id, {})
        remote: Remote = {}
        for seat, processes in seats.items():
            for process in processes - {self.process_id}:
                held, _ = remote.get(process, (frozenset(), 0))
                spectators = known.get(process, (frozenset(), 1))[1] if seat == SPECTATOR else 0
                remote[process] = (held | ({seat} if seat != SPECTATOR else set()),
                                   max(spectators, remote.get(process, (frozenset(), 0))[1]))
        self.remote[room.room_id] = remote
        newly_away = self._sync(room)
        self._announce(room, CommittedChange(room.room_id, room.version, stored=False))
        for seat in newly_away:
            self.timers.arm(room, seat)

    async def _resync(self, rooms: frozenset[str]) -> None:
        """The subscriber was away (messages may be lost): reload every followed room, read the
        shared presence again, and tell the others where this process's connections are."""
        for room_id in rooms:
            room = self.registry.held(room_id)
            if room is None:
                continue
            async with room.lock:
                await self._reload(room)
                await self._presence_from_store(room)
                here = self._here(room)
            if not self._alone(room_id):
                empty = CommittedChange(room_id, room.version, presence={}, stored=False)
                self._outgoing.put_nowait((room_id, {"change": empty.to_json(), "here": here}, None))
            self.bots.kick(room)

    async def _reconcile_loop(self) -> None:
        """Drop the presence of processes that stopped beating (killed): their seats are free."""
        while True:
            await asyncio.sleep(RECONCILE_SECONDS)
            if not any(self.remote.values()):
                continue
            try:
                alive = set(await self.coord.registry.alive())
            except Exception:
                continue
            for room_id, entries in list(self.remote.items()):
                gone = set(entries) - alive
                room = self.registry.held(room_id)
                if not gone or room is None:
                    continue
                async with room.lock:
                    for process in gone:
                        entries.pop(process, None)
                    newly_away = self._sync(room)
                    self._announce(room, CommittedChange(room_id, room.version, stored=False))
                for seat in newly_away:
                    self.timers.arm(room, seat)

    def _spawn(self, coroutine: Any) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coroutine)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)
