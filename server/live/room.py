"""The thin live room: one table in this process, its lock, its members, its listeners.

Every change goes the same way: a pure command of `server/table/` runs on the current table under the
lock, the result is written with a compare-and-set on the version, and the committed change goes to
the listeners (`server/live/change.py`). A command that raises changes nothing; a write the store
refuses changes nothing either (the live copy is reloaded from the store).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol

from ..rules import Session
from ..store import NotReplicatedError, Store, StoredRoom, VersionConflictError
from ..table import Outcome, Table, advance, clock, errors, facts, from_stored, presence, to_stored
from .change import JSON, CommittedChange

log = logging.getLogger("whist.rooms")

Command = Callable[[Table], Outcome | None]  # None: nothing to do (e.g. a bot move made moot)


class Member(Protocol):
    """One client connection, as a room sees it (the room never writes to it, only pushes)."""

    name: str
    wants_events: bool  # whether to push `events` messages (the `hello` option)
    closing: bool  # the connection has closed or is closing: it enters no room any more

    def push(self, message: JSON) -> None:
        """Queue a message object for this connection (never blocks)."""


class Owner(Protocol):
    """Whether this process runs a room's bots and timers (several processes on one store: its owner
    only; see `server/live/ownership.py`)."""

    def owns(self, room: LiveRoom) -> bool:
        """Whether this process owns the room."""


class _EveryRoom:
    """A process alone: it owns every room it holds."""

    def owns(self, room: LiveRoom) -> bool:
        """Always."""
        return True


owns_every_room: Owner = _EveryRoom()


class RoomListener:
    """What reacts to a room's changes. Every hook is optional; a listener reads the room (its
    `table`, its `members`) and never changes it except through the room's own methods (`apply`...).
    Listeners never call each other: what one needs to tell the others is a hook of the room.

    Order, for each change: every listener's `stored` (awaited, under the room's lock, before anyone
    hears of the change: e.g. the daily leaderboard), then every listener's `committed` (synchronous:
    pushes, timers, bots, lobby); `unconfirmed` instead when a write's outcome is unknown. `opened`
    runs once when a room is created or loaded into this process (`loaded`, awaited, after a load from
    the store), `closed` when it is dropped or the server stops; `busy` keeps an idle room in memory.
    Several processes on one store: `owned` / `disowned` when this process becomes or stops being the
    room's owner (the one that runs its bots and timers), `away` when a seat is left with no
    connection in any process.
    """

    async def stored(self, room: LiveRoom, change: CommittedChange) -> None:
        """After the store took the change, before anyone is told."""

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """After the change (tell the connections, arm timers, wake bots...)."""

    def unconfirmed(self, room: LiveRoom) -> None:
        """A write's outcome is unknown (the store stopped answering): the room's copy here may be
        behind the store until it is reloaded."""

    def opened(self, room: LiveRoom) -> None:
        """The room is now served by this process."""

    async def loaded(self, room: LiveRoom) -> None:
        """The room was just loaded from the store into this process (after `opened`)."""

    async def owned(self, room: LiveRoom) -> None:
        """This process owns the room now: it runs the room's bots and timers."""

    async def disowned(self, room: LiveRoom) -> None:
        """This process no longer owns the room (handed over, or its lease was lost)."""

    def away(self, room: LiveRoom, seat: int) -> None:
        """The seat's player is connected nowhere any more (the others' presence said so)."""

    def closed(self, room: LiveRoom) -> None:
        """The room is no longer served here: release what the listener holds for it."""

    def busy(self, room: LiveRoom) -> bool:
        """Whether the listener still works for this room (it is not dropped from memory meanwhile)."""
        return False


class LiveRoom:
    """One table served by this process."""

    def __init__(self, table: Table, store: Store, listeners: Sequence[RoomListener],
                 human_gate: Callable[[], contextlib.AbstractContextManager[None]] | None = None,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.table = table
        self.wall_clock = wall_clock  # Unix seconds: the turn clock's deadlines, the same on every process
        self.store = store
        self.listeners = tuple(listeners)
        self.members: dict[Member, str | None] = {}  # connection -> participant (None: spectator)
        self.lock = asyncio.Lock()
        self.stale = False  # a write failed: reload from the store before the next change
        # The store no longer holds the room (its retention after the archive ran out): nothing more
        # happens in it here; the registry drops it and the archive answers for it.
        self.gone = False
        self._human_gate = human_gate or contextlib.nullcontext

    # ---------------------------------------------------------------- read-only facts

    @property
    def room_id(self) -> str:
        """The room's id."""
        return self.table.room_id

    @property
    def version(self) -> int:
        """The stored version the live table matches."""
        return self.table.version

    @property
    def session(self) -> Session | None:
        """The rules engine's session (None before the start)."""
        return self.table.session

    @property
    def over(self) -> bool:
        """Whether the session is over."""
        return facts.over(self.table)

    def seat_of_member(self, member: Member) -> int | None:
        """The seat a connection of this room holds, if any."""
        return facts.seat_of(self.table, self.members.get(member))

    # ---------------------------------------------------------------- changing the room

    async def apply(self, command: Command, *, human: bool = True) -> Outcome | None:
        """Run `command` under the lock, store its result, hand the change to the listeners.
        `human`: a player's request, served before bot moves (see `BotScheduler`)."""
        gate = self._human_gate() if human else contextlib.nullcontext()
        with gate:
            async with self.lock:
                return await self.apply_locked(command)

    async def admit(self, member: Member, participant: str | None) -> Outcome | None:
        """A connection enters the room as `participant` (None: a spectator). Not stored."""
        async with self.lock:
            self.members[member] = participant
            now = time.monotonic()
            return await self.apply_locked(lambda table: presence.arrive(table, participant, now),
                                           fresh=False)

    async def release(self, member: Member) -> Outcome | None:
        """A connection leaves the room (or drops). Not stored."""
        async with self.lock:
            if member not in self.members:
                return None
            participant = self.members.pop(member)
            now = time.monotonic()
            return await self.apply_locked(lambda table: presence.depart(table, participant, now),
                                           fresh=False)

    async def apply_locked(self, command: Command, *, fresh: bool = True) -> Outcome | None:
        """`apply`, for a caller that holds the lock already. `fresh`: reload a stale copy first (a
        change of presence alone does not need the stored state)."""
        if self.stale and fresh:
            try:
                await self.reload()
            except Exception:
                log.exception("room %s: reload failed", self.room_id)
                raise _store_silent() from None
        if self.gone and fresh:
            raise _gone(self.room_id)
        outcome = command(self.table)
        if outcome is None:
            return None
        table = outcome.table
        if outcome.stored:
            # The turn clock follows the turn: kept for the same turn, started for a new one (stored, so
            # every process and a reload read the same deadline).
            table = clock.rearm(table, self.wall_clock())
            table = replace(table, version=await self._write(table, outcome.entries))
        self.table = table
        change = CommittedChange(self.room_id, table.version, tuple(outcome.events), tuple(outcome.entries),
                                 outcome.presence, outcome.stored)
        for listener in self.listeners:
            await listener.stored(self, change)
        self.announce(change)
        return outcome

    def announce(self, change: CommittedChange) -> None:
        """Hand a change to every listener's `committed` hook."""
        for listener in self.listeners:
            listener.committed(self, change)

    async def _write(self, table: Table, entries: list[JSON]) -> int:
        """The compare-and-set write; returns the new version."""
        state = to_stored(table)
        try:
            return await self.store.save(self.room_id, state, self.table.version, entries,
                                         facts.lobby_entry(table))
        except VersionConflictError as conflict:
            try:
                await self.reload()
            except Exception:
                log.exception("room %s: reload failed", self.room_id)
                self.stale = True
                raise _store_silent() from None
            if self.gone:
                raise _gone(self.room_id) from None
            raise errors.Conflict(f"the room changed under this request ({conflict}); nothing was applied: "
                                  "retry") from None
        except NotReplicatedError as unconfirmed:
            # The primary holds the move, too few replicas confirmed it: a failover now could lose it, so
            # it is not answered as done. The room is read again as soon as the store answers (and its
            # connections sent what the store holds then: the move, or not if it was lost).
            log.warning("room %s: %s", self.room_id, unconfirmed)
            self.stale = True
            for listener in self.listeners:
                listener.unconfirmed(self)
            raise errors.StoreUnavailable(
                "the store's replicas did not confirm the move; the room's state is sent again when the "
                "store answers: retry then if the move is not in it") from None
        except Exception as failure:
            # The write was not confirmed. It may still have run (a timeout cut short its answer): then
            # the move happened and is answered as such; otherwise nothing happened.
            log.exception("room %s: store write failed", self.room_id)
            self.stale = True
            landed = await self._landed(state)
            if landed is not None:
                return landed
            if self.stale:  # the store does not answer: whether the write ran is not known yet
                for listener in self.listeners:
                    listener.unconfirmed(self)
                raise errors.StoreUnavailable(
                    f"the store did not confirm the move ({type(failure).__name__}); the room's state is "
                    "sent again when the store answers: retry then if the move is not in it") from None
            raise errors.StoreUnavailable(f"the room could not be saved ({type(failure).__name__}); nothing "
                                          "was applied: retry") from None

    async def _landed(self, state: JSON) -> int | None:
        """After a failed write of the stored form `state`: its version if the store holds it after all
        (and, when saves wait for replicas, they hold it too), else None. The live copy is reloaded when
        the store answers (it is no longer `stale`)."""
        written = self.table.version + 1
        with contextlib.suppress(Exception):
            stored = await self.store.load(self.room_id)
            if stored is not None and stored.version == written and _same(stored.state, state):
                if not await self.store.replicated(self.room_id):
                    return None  # held by the primary only (Sentinel): still unconfirmed, still stale
                self.stale = False
                return written
            if stored is not None:
                await self._install(stored)
        return None

    # ---------------------------------------------------------------- what other processes changed

    def mark_stale(self) -> None:
        """The copy here may be behind the store (nobody tells it of changes, or a reload failed):
        reload before the next change."""
        self.stale = True

    def advance(self, state: JSON, version: int, entries: Sequence[JSON]) -> None:
        """Move the table on by a change another process committed (the next version: its stored
        `state` and logged `entries`). Under the lock."""
        self.table = advance(self.table, state, version, entries)

    def share_presence(self, seats: frozenset[int], spectators: int) -> None:
        """The seats and spectators connected in the other processes (under the lock); a seat left
        with no connection anywhere is told to the listeners (`away`)."""
        outcome, newly_away = presence.sync_remote(self.table, seats, spectators, time.monotonic())
        self.table = outcome.table
        for seat in newly_away:
            for listener in self.listeners:
                listener.away(self, seat)

    async def owned(self) -> None:
        """This process owns the room now: every listener's `owned`, in order."""
        for listener in self.listeners:
            await listener.owned(self)

    async def disowned(self) -> None:
        """This process no longer owns the room: every listener's `disowned`, in order."""
        for listener in self.listeners:
            await listener.disowned(self)

    async def catch_up(self) -> bool:
        """Reload the room if the store holds a newer version than the live copy (another process
        changed it); True if it did. Under the lock. A room the store no longer holds is `gone`."""
        async with self.lock:
            try:
                stored = await self.store.load(self.room_id)
                if stored is None:
                    self.gone = True
                    return False
                if stored.version == self.table.version and not self.stale:
                    return False
                if not await self._install(stored):
                    self.announce_reload()  # stale at the same version: tell the connections anyway
            except Exception:
                log.exception("room %s: reload failed", self.room_id)
                raise _store_silent() from None
            return True

    def announce_reload(self) -> None:
        """The live copy was behind the store and was reloaded: the connections here get the current
        state (a change with nothing of its own to publish)."""
        self.announce(CommittedChange(self.room_id, self.version, stored=False))

    async def reload(self) -> None:
        """Replace the live table with the stored one (presence is kept: it is not stored). When the
        store was ahead, the connections here were behind too: they are sent the current state. A room
        the store no longer holds is `gone`."""
        stored = await self.store.load(self.room_id)
        if stored is None:
            self.gone = True
        else:
            await self._install(stored)

    async def _install(self, stored: StoredRoom) -> bool:
        """Make `stored` (just loaded) the live table; True if the live copy was behind it (then the
        connections here have been told)."""
        entries = await self.store.read_log(self.room_id) if stored.state.get("session") is not None else []
        behind = stored.version != self.table.version
        self.table = replace(from_stored(stored.state, stored.version, entries), presence=self.table.presence)
        self.stale = False
        if behind:
            # E.g. a write that reached the store but not this copy (cut short by a timeout, or by a
            # cancelled bot step when the lease was lost): whatever the caller does next (maybe
            # nothing), the players must see the stored move, or a human never learns it is their turn.
            self.announce_reload()
        return behind


def _store_silent() -> errors.StoreUnavailable:
    """The error for a command refused because the store does not answer before anything was written."""
    return errors.StoreUnavailable("the store does not answer; nothing was applied: retry")


def _gone(room_id: str) -> errors.NoSuchRoom:
    """The error for a command on a room the store has let go since this process loaded it."""
    return errors.NoSuchRoom(f"room {room_id!r} is over and has left the live store; its deals are in the "
                             "archive")


def _same(stored: JSON, written: JSON) -> bool:
    """Whether two stored states are equal as the store keeps them (JSON: tuples read back as lists)."""
    return json.dumps(stored, sort_keys=True) == json.dumps(written, sort_keys=True)
