"""Shared presence: who is connected to this process's rooms in the other processes.

A published change of presence carries the publisher's connected seats and spectators in the room
(`here`); this keeps them per process and hands their union to the room (`LiveRoom.share_presence`),
so that no process lets a bot take the seat of a player connected elsewhere. `coord.presence` (shared,
with expiry) is read when a process starts to follow a room; the entries of processes that stop beating
(killed) are dropped by a pass every `RECONCILE_SECONDS`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from ..coord import SPECTATOR, Presence, Registry
from ..table import facts
from .background import Background
from .change import JSON, CommittedChange
from .room import LiveRoom, RoomListener

log = logging.getLogger("whist.shared")

RECONCILE_SECONDS = 2.0  # how often presence of processes that stopped beating is dropped

Remote = dict[str, tuple[frozenset[int], int]]  # process id -> (its connected seats, its spectators)


def here(room: LiveRoom) -> JSON:
    """This process's connections in the room, as published to the others."""
    table = room.table
    return {"seats": sorted(facts.local_seats(table)), "spectators": table.presence.spectators}


def told(room: LiveRoom) -> None:
    """Tell this process's listeners of the room as it is now (a change heard from elsewhere: not
    published again)."""
    room.announce(CommittedChange(room.room_id, room.version, stored=False, received=True))


class RemotePresence(RoomListener):
    """The other processes' connections in the rooms held here."""

    def __init__(self, process_id: str, shared: Presence, processes: Registry,
                 held: Callable[[str], LiveRoom | None], background: Background) -> None:
        self.process_id = process_id
        self.shared = shared  # the shared presence sets (read when a room starts to be followed)
        self.processes = processes  # which processes are alive
        self.held = held  # the room registry's lookup of rooms held here
        self.background = background
        self.remote: dict[str, Remote] = {}  # room -> the other processes' presence there

    def start(self) -> None:
        """Start the pass that drops the presence of processes that died."""
        self.background.spawn(self._reconcile_loop(), name="shared-presence")

    # ---------------------------------------------------------------- questions

    def elsewhere(self, room_id: str) -> bool:
        """Whether another process has connections in the room (as its last published presence says)."""
        return any(seats or spectators for seats, spectators in self.remote.get(room_id, {}).values())

    def rooms_elsewhere(self) -> list[str]:
        """The rooms where another process has connections."""
        return [room_id for room_id in list(self.remote) if self.elsewhere(room_id)]

    async def live_elsewhere(self, room_id: str) -> bool:
        """Whether a *live* process has connections in the room. The presence of a process killed a
        moment ago lingers until it expires: handing a room to it would leave nobody to claim it (an
        adopter that took a dead owner's room gave it straight back to the dead)."""
        if not self.elsewhere(room_id):
            return False
        try:
            alive = set(await self.processes.alive())
        except Exception:  # Redis away: keep the room
            return False
        return any((seats or spectators) and process in alive
                   for process, (seats, spectators) in self.remote.get(room_id, {}).items())

    # ---------------------------------------------------------------- what the others said

    def heard(self, room: LiveRoom, origin: str, seen: JSON) -> None:
        """Process `origin` published its connections in the room (`here`). Under the room's lock."""
        self.remote.setdefault(room.room_id, {})[origin] = (
            frozenset(int(seat) for seat in seen.get("seats", [])), int(seen.get("spectators", 0)))
        self._share(room)

    async def from_store(self, room: LiveRoom) -> None:
        """The other processes' presence in the room, from the shared presence sets (under the lock);
        the connections here are told of the room as it is now in any case."""
        try:
            seats = await self.shared.seats(room.room_id)
        except Exception as problem:
            log.warning("room %s: presence not read: %s", room.room_id, type(problem).__name__)
            told(room)  # what a reload just brought must reach the connections here all the same
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
        self._share(room)
        told(room)

    def forget(self, room_id: str) -> None:
        """The room is not followed here any more: its remote presence is unknown."""
        self.remote.pop(room_id, None)

    def closed(self, room: LiveRoom) -> None:
        """The room left this process's memory."""
        self.forget(room.room_id)

    def _share(self, room: LiveRoom) -> None:
        """Hand the union of the others' presence to the room (under its lock)."""
        entries = self.remote.get(room.room_id, {})
        seats = frozenset().union(*(seats for seats, _ in entries.values())) if entries else frozenset()
        room.share_presence(seats, sum(count for _, count in entries.values()))

    async def _reconcile_loop(self) -> None:
        """Drop the presence of processes that stopped beating (killed): their seats are free."""
        while True:
            await asyncio.sleep(RECONCILE_SECONDS)
            if any(self.remote.values()):
                await self.drop_dead()

    async def drop_dead(self) -> None:
        """One pass: forget the presence of the processes the registry no longer lists."""
        try:
            alive = set(await self.processes.alive())
        except Exception:
            return
        for room_id, entries in list(self.remote.items()):
            gone = set(entries) - alive
            room = self.held(room_id)
            if not gone or room is None:
                continue
            async with room.lock:
                for process in gone:
                    entries.pop(process, None)
                self._share(room)
                told(room)
