"""Several server processes on one store: the live rooms wired to the coordination
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
  then hands the change to its own listeners: the outbox pushes it through the one filter. When the
  room's last publication reached no other process, nothing more is published (no PUBLISH, and none
  read back by its own subscriber) until a process that starts to follow the room says so
  (`subscribed`, sent before it reloads); the answer is a note of the version here, so a change
  committed before the newcomer was heard is either in what it reloaded or announced by that note.
  After the subscriber reconnects (a newcomer's word may be lost), every room publishes again.
- **Presence.** A published change of presence carries the publisher's connected seats and spectators
  in the room; the others keep them per process (`Presence.remote_seats`), so no process lets a bot
  take the seat of a player connected elsewhere. Entries of processes that stop beating are dropped.
  `coord.presence` (shared, with expiry) is read when a process starts serving a room.
- **Sending.** Everything this process tells the others (changes, presence counts, lobby pings) leaves
  through one `Publisher` (`server/live/publisher.py`), in order.
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
from .publisher import LOBBY_CHANNEL, RETRY_FIRST_SECONDS, RETRY_MAX_SECONDS, Publisher, SeatChange
from .registry import RoomRegistry
from .room import LiveRoom
from .timers import GraceTimers

log = logging.getLogger("whist.shared")

RECONCILE_SECONDS = 2.0  # how often presence of processes that stopped beating is dropped
ORPHAN_SECONDS = 3.0  # how often the owner book is read for rooms whose last owner died

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
        self.publisher = Publisher(coord)
        self._inbox: dict[str, collections.deque[Change]] = {}
        self._draining: dict[str, asyncio.Task[None]] = {}
        self._remote_now: set[str] = set()  # rooms whose received change is being announced here
        self._lobby_lines: dict[str, JSON | None] = {}
        self._behind: set[str] = set()  # followed rooms whose reload failed (see `_fall_behind`)
        self._catching_up: asyncio.Task[None] | None = None
        self._recorded: set[str] = set()  # rooms this process is the latest owner of in the owner book
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
        self._tasks = [loop.create_task(self.publisher.run(), name="shared-publisher"),
                       loop.create_task(self._reconcile_loop(), name="shared-presence"),
                       loop.create_task(self._orphan_loop(), name="shared-orphans")]

    async def close(self) -> None:
        """Send what is queued (briefly), stop, release every lease and presence entry."""
        if not self._started:
            return
        self._started = False
        await self.publisher.flush(2.0)
        catching_up = [self._catching_up] if self._catching_up is not None else []
        for task in (*self._tasks, *self._draining.values(), *self._spawned, *catching_up):
            task.cancel()
        await asyncio.gather(*self._tasks, *self._draining.values(), *self._spawned, *catching_up,
                             return_exceptions=True)
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
        """A connection is about to enter the room here: follow its changes, be current, and take the
        room whenever its lease is free (a process with connections in a room is a candidate owner)."""
        await self.start()
        if not room.over:
            self.coord.leases.want(room.room_id)
        if room.room_id in self.subscribed:
            return
        await self._subscribe(room)

    async def detach(self, room: LiveRoom) -> None:
        """A connection left the room here: stop following it when nothing here needs it."""
        if (not room.members and not room.over and self.owns(room)
                and await self._live_elsewhere(room.room_id)):
            await self._hand_over(room)
        if room.members or self.owns(room) or room.room_id not in self.subscribed:
            return
        await self._unfollow(room)

    def _elsewhere(self, room_id: str) -> bool:
        """Whether another process has connections in the room (as its last published presence says)."""
        return any(seats or spectators for seats, spectators in self.remote.get(room_id, {}).values())

    async def _live_elsewhere(self, room_id: str) -> bool:
        """Whether a *live* process has connections in the room. The presence of a process killed a
        moment ago lingers until it expires: handing a room to it would leave nobody to claim it (an
        adopter that took a dead owner's room gave it straight back to the dead)."""
        if not self._elsewhere(room_id):
            return False
        try:
            alive = set(await self.coord.registry.alive())
        except Exception:  # Redis away: keep the room
            return False
        return any((seats or spectators) and process in alive
                   for process, (seats, spectators) in self.remote.get(room_id, {}).items())

    async def _hand_over(self, room: LiveRoom) -> None:
        """The owner's last connection in the room left while another process has some (room affinity
        at the balancer sends a room's connections to one replica, but the creator's first connection
        landed anywhere): give the lease up, so that a process with connections there owns the room and
        this one stops applying its changes. The release is a compare-and-delete (no two owners); the
        others, told on the room's channel, claim it at once rather than at their next lease pass."""
        room_id = room.room_id
        self.coord.leases.unwant(room_id)
        try:
            released = await self.coord.leases.release(room_id)
        except Exception as problem:  # Redis away: keep the room (the lease may still be ours)
            log.warning("room %s: not handed over: %s", room_id, type(problem).__name__)
            self.coord.leases.want(room_id)
            return
        self.bots.closed(room)
        self.timers.closed(room)
        if released and not self._alone(room_id):
            self.publisher.send(room_id, {"released": self.process_id})
        log.info("room handed over", extra={"fields": {"room": room_id, "process": self.process_id}})

    async def _unfollow(self, room: LiveRoom) -> None:
        """Stop following the room's changes (nothing here needs them)."""
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
        self.publisher.forget(room.room_id)
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
        # Tell a process that publishes nothing because nobody listened (`_unheard`) to publish again.
        # It answers with its version: what it committed before hearing this, and after the reload
        # below, is not missed.
        self.publisher.send(room.room_id, {"subscribed": self.process_id})
        async with room.lock:
            await self._reload(room)  # on failure the room is caught up later (`_fall_behind`)
            await self._presence_from_store(room)

    async def _took(self, room: LiveRoom) -> None:
        """This process owns the room now: follow it, and run its bots and timers."""
        if room.room_id not in self.subscribed:
            await self._subscribe(room)
        self.bots.kick(room)
        for seat in list(room.table.presence.away_since):
            self.timers.arm(room, seat)
        self._spawn(self._record_owner(room.room_id))

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
        self._recorded.discard(room_id)  # whoever takes it records itself
        self.bots.closed(room)
        self.timers.closed(room)
        await self.detach(room)

    # ---------------------------------------------------------------- publishing

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """Publish a change committed here (not one received from another process)."""
        if room.room_id in self._recorded and room.over:  # the room ended: nobody need adopt it
            self._recorded.discard(room.room_id)
            self._spawn(self._forget_owner(room.room_id))
        if room.room_id in self._remote_now or not self._started:
            return
        if not change.stored and change.presence is None and not change.events:
            return  # a reload here, nothing of this process's to tell
        seat_change: SeatChange | None = None
        if change.presence is not None:
            for kind in ("arrived", "departed"):
                if kind in change.presence:
                    seat = change.presence[kind]
                    seat_change = (kind, SPECTATOR if seat is None else int(seat))
        payload: JSON
        if self._alone(room.room_id) or self._unheard(room.room_id):
            # Nobody else follows the room (and a process that starts to will say so: "subscribed", see
            # `_apply_received`): no PUBLISH, and none read back; only the presence to share.
            payload = {}
        elif self.publisher.others_reached(room.room_id) == 0:
            # Nobody else heard the last one, and this process does not follow the room's channel, so
            # it would not hear a newcomer: a note of the version only. A process that subscribed
            # meanwhile finds no state in it and reloads from the store.
            note = CommittedChange(room.room_id, change.version, presence=change.presence,
                                   stored=change.stored)
            payload = {"change": note.to_json()}
        else:
            payload = {"change": change.to_json()}
            if change.stored:
                payload["state"] = to_stored(room.table)
        if change.presence is not None and payload:
            payload["here"] = self._here(room)
        if payload or seat_change is not None:
            self.publisher.send(room.room_id, payload, seat_change)
        if change.stored and not isinstance(self.coord.fanout, MemoryFanout):
            line = facts.lobby_entry(room.table)
            if room.room_id not in self._lobby_lines or line != self._lobby_lines[room.room_id]:
                self._lobby_lines[room.room_id] = line
                self.lobby_changed()

    def lobby_changed(self) -> None:
        """Tell every process that a lobby line changed (they push the lobby to their subscribers)."""
        if self._started and not isinstance(self.coord.fanout, MemoryFanout):
            self.publisher.send(LOBBY_CHANNEL, {"lobby": True})

    def _unheard(self, room_id: str) -> bool:
        """Whether this process's last publication on the room reached no other process and none has
        said since that it follows the room (this process is subscribed, so it would have heard)."""
        return (self.publisher.others_reached(room_id) == 0 and room_id in self.subscribed
                and room_id in self.coord.fanout.listeners)

    def _alone(self, room_id: str) -> bool:
        """In-memory twins with no other process on the room: nobody to publish to."""
        fanout = self.coord.fanout
        return isinstance(fanout, MemoryFanout) and fanout.hub.subscribers.get(room_id, set()) <= {fanout}

    @staticmethod
    def _here(room: LiveRoom) -> JSON:
        table = room.table
        return {"seats": sorted(facts.local_seats(table)), "spectators": table.presence.spectators}

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
        if "released" in data:
            await self._claim(room)
            return
        if "subscribed" in data:
            # A newcomer: publish every change again, starting with a note of the version here now.
            self.publisher.forget(room_id)
            note = CommittedChange(room_id, room.version, stored=True)
            self.publisher.send(room_id, {"change": note.to_json(), "here": self._here(room)})
            return
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

    async def _claim(self, room: LiveRoom) -> None:
        """Its owner gave the room up (`_hand_over`): take it now if this process wants it."""
        if room.over or room.room_id not in self.coord.leases.wanted or self.owns(room):
            return
        try:
            taken = await self.coord.leases.acquire(room.room_id)
        except Exception:
            return  # the lease passes claim it later
        if taken:
            log.info("room taken over", extra={"fields": {"room": room.room_id, "process": self.process_id}})
            await self._took(room)

    async def _reload(self, room: LiveRoom) -> None:
        try:
            await room.reload()
        except Exception:
            log.exception("room %s: reload failed", room.room_id)
            room.stale = True
            self._fall_behind(room.room_id)

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
        """The other processes' presence in the room, from the shared presence sets (under the lock);
        the connections here are told of the room as it is now in any case."""
        try:
            seats = await self.coord.presence.seats(room.room_id)
        except Exception as problem:
            log.warning("room %s: presence not read: %s", room.room_id, type(problem).__name__)
            # What a reload just brought must reach the connections here all the same.
            self._announce(room, CommittedChange(room.room_id, room.version, stored=False))
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

    def unconfirmed(self, room: LiveRoom) -> None:
        """A write's outcome is unknown: catch the room up as soon as the store answers, so that its
        connections learn whether the move happened without having to ask."""
        self._fall_behind(room.room_id)

    def _resync(self, rooms: frozenset[str]) -> None:
        """The subscriber was away (messages may be lost): catch every followed room up (in the
        background: the subscriber goes on reading meanwhile). A newcomer's "subscribed" may be among
        the lost messages: publish every room's next change again."""
        self.publisher.forget()
        for room_id in rooms:
            self._fall_behind(room_id)

    def _fall_behind(self, room_id: str) -> None:
        """The room's copy here may be behind the store, and its connections here not told (a reload
        failed, or messages were lost): catch it up, trying again until the store answers.

        Why: a change missed here is otherwise heard of only with the room's next change, and there
        may be none: when the missed change gave the turn to a player connected here (or was the last
        `ready` before the owner deals), every seat waits for a move nobody was told to make."""
        self._behind.add(room_id)
        if self._started and (self._catching_up is None or self._catching_up.done()):
            self._catching_up = asyncio.get_running_loop().create_task(self._catch_up_behind(),
                                                                       name="shared-catch-up")

    async def _catch_up_behind(self) -> None:
        delay = RETRY_FIRST_SECONDS
        while self._behind:
            for room_id in sorted(self._behind):
                room = self.registry.held(room_id)
                try:
                    done = room is None or room_id not in self.subscribed or await self._catch_up(room)
                except Exception:  # not caught up: the next round tries again
                    log.exception("room %s: catch-up failed", room_id)
                    done = False
                if done:
                    self._behind.discard(room_id)
            if self._behind:
                await asyncio.sleep(delay)
                delay = min(RETRY_MAX_SECONDS, delay * 2)

    async def _catch_up(self, room: LiveRoom) -> bool:
        """Reload the room, read the shared presence, tell the connections here and the other
        processes (where this process's connections are), wake the bots. False if the reload failed
        (the caller tries again); presence not read is not retried: the others publish theirs when
        they resync, and the reconcile pass drops processes that died."""
        room_id = room.room_id
        async with room.lock:
            try:
                await room.reload()
            except Exception as problem:
                log.warning("room %s: catch-up reload failed: %s", room_id, type(problem).__name__)
                room.stale = True
                return False
            await self._presence_from_store(room)
            here = self._here(room)
        if not self._alone(room_id):
            empty = CommittedChange(room_id, room.version, presence={}, stored=False)
            self.publisher.send(room_id, {"change": empty.to_json(), "here": here})
        self.bots.kick(room)
        return True

    async def _reconcile_loop(self) -> None:
        """Drop the presence of processes that stopped beating (killed): their seats are free."""
        while True:
            await asyncio.sleep(RECONCILE_SECONDS)
            if not any(self.remote.values()):
                continue
            await self._hand_over_idle()
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

    async def _hand_over_idle(self) -> None:
        """Rooms owned here with no connection here while another process has some (e.g. taken over
        at a failover by a process that only had the room in memory): hand them over (see `detach`)."""
        for room_id in list(self.remote):
            room = self.registry.held(room_id)
            if room is not None and not room.members and self.owns(room) and self._elsewhere(room_id):
                try:  # `detach` hands it over if the process with connections there is alive
                    await self.detach(room)
                except Exception:
                    log.exception("room %s: hand-over failed", room_id)

    def _spawn(self, coroutine: Any) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coroutine)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)

    # ---------------------------------------------------------------- orphaned rooms

    async def _record_owner(self, room_id: str) -> None:
        """Name this process the room's latest owner in the owner book (an orphan pass retries)."""
        try:
            await self.coord.owners.record(room_id)
        except Exception as problem:
            log.warning("room %s: owner not recorded: %s", room_id, type(problem).__name__)
            return
        if self.coord.leases.holds(room_id):
            self._recorded.add(room_id)

    async def _forget_owner(self, room_id: str) -> None:
        try:
            await self.coord.owners.forget(room_id)
        except Exception as problem:  # left in the book: an adopter finds the room over and forgets it
            log.warning("room %s: owner not forgotten: %s", room_id, type(problem).__name__)

    async def _orphan_loop(self) -> None:
        """Adopt the rooms whose owner died while no live process holds them (see `adopt_orphans`)."""
        while True:
            await asyncio.sleep(ORPHAN_SECONDS)
            try:
                await self.adopt_orphans()
            except Exception as problem:  # Redis away: the next pass tries again
                log.warning("orphan pass failed", extra={"fields": {"error": type(problem).__name__}})

    async def adopt_orphans(self) -> list[str]:
        """One pass: record the rooms owned here that the book does not name yet, then take every
        room whose latest owner is not a live process. Returns the rooms adopted.

        Why: a process that holds a room in memory (it has connections there) claims its lease when
        the owner dies; a room nobody holds (bots only, or players gone) is claimed by nobody, and its
        bots and timers would wait for ever. The lease decides between adopters (`SET NX`): two
        processes never run the same room's bots."""
        for room_id in sorted(self.coord.leases.held - self._recorded):
            room = self.registry.held(room_id)
            if room is not None and not room.over:
                await self._record_owner(room_id)
        alive = await self.coord.registry.alive()
        adopted = []
        for room_id in await self.coord.owners.orphans(alive):
            if await self._adopt_orphan(room_id):
                adopted.append(room_id)
        return adopted

    async def _adopt_orphan(self, room_id: str) -> bool:
        if self.coord.leases.holds(room_id):
            await self._record_owner(room_id)  # ours already: the book named a dead process
            return False
        # Not taken: another process was first, or the dead owner's lease has not expired yet (a
        # later pass sees the room again while the book names a dead process).
        if not await self.coord.leases.acquire(room_id):
            return False
        try:
            room = self.registry.held(room_id)
            if room is None:
                room = await self.registry.get(room_id)  # loading it claims it and runs it here (`adopt`)
            elif not room.over:
                self.coord.leases.want(room_id)
                await self._took(room)
        except Exception:
            # Not running it here: do not keep a lease that would stop anyone else from doing so.
            with contextlib.suppress(Exception):
                await self.coord.leases.release(room_id)
            raise
        if room is None or room.over:  # gone from the store, or it ended: out of the book
            await self.coord.owners.forget(room_id)
            await self.coord.leases.release(room_id)
            return False
        log.info("orphaned room adopted", extra={"fields": {"room": room_id, "process": self.process_id}})
        return True
