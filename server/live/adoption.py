"""Orphan adoption: the rooms whose last owner died while no live process holds them.

A process that holds a room in memory (it has connections there) claims its lease when the owner dies;
a room nobody holds (bots only, or players gone) is claimed by nobody, and its bots and timers would
wait for ever. So the owner of each unfinished room is named in the owner book (`coord.owners`), and
every `ORPHAN_SECONDS` each process takes the rooms whose latest owner is not a live process. The lease
decides between adopters (`SET NX`): two processes never run the same room's bots.

Whoever takes a room (adopting it, or claiming its lease after its owner died) also writes the room's
entries in the store's global indexes again (`repair_index`): on a Redis Cluster a save writes them
after the room, and the owner may have died in between (a new room missing from the lobby).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from ..coord import Owners, Registry
from .background import Background
from .change import CommittedChange
from .ownership import Ownership
from .registry import RoomRegistry
from .room import LiveRoom, RoomListener

log = logging.getLogger("whist.shared")

ORPHAN_SECONDS = 3.0  # how often the owner book is read for rooms whose last owner died


class Adoption(RoomListener):
    """Keeps this process's name in the owner book for the rooms it owns; adopts orphaned rooms."""

    def __init__(self, process_id: str, owners: Owners, processes: Registry, rooms: RoomRegistry,
                 ownership: Ownership, background: Background,
                 repair_index: Callable[[str], Awaitable[None]]) -> None:
        self.process_id = process_id
        self.owners = owners  # the owner book
        self.processes = processes  # which processes are alive
        self.rooms = rooms  # the rooms held here (an orphan is loaded through it)
        self.ownership = ownership
        self.background = background
        self.recorded: set[str] = set()  # rooms this process is the latest owner of in the owner book
        self.repair_index = repair_index

    def start(self) -> None:
        """Start the orphan passes."""
        self.background.spawn(self._orphan_loop(), name="shared-orphans")

    # ---------------------------------------------------------------- the owner book

    async def owned(self, room: LiveRoom) -> None:
        """Name this process the room's latest owner (in the background: an orphan pass retries), and
        write its index entries again (owed, perhaps, by an owner that died after saving it)."""
        self.background.spawn(self._record_owner(room.room_id))
        self.background.spawn(self._repair_index(room.room_id))

    async def disowned(self, room: LiveRoom) -> None:
        """Whoever takes the room records itself."""
        self.recorded.discard(room.room_id)

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """The room ended: nobody need adopt it, out of the book."""
        if room.room_id in self.recorded and room.over:
            self.recorded.discard(room.room_id)
            self.background.spawn(self._forget_owner(room.room_id))

    async def _record_owner(self, room_id: str) -> None:
        try:
            await self.owners.record(room_id)
        except Exception as problem:
            log.warning("room %s: owner not recorded: %s", room_id, type(problem).__name__)
            return
        if self.ownership.holds(room_id):
            self.recorded.add(room_id)

    async def _repair_index(self, room_id: str) -> None:
        try:
            await self.repair_index(room_id)
        except Exception as problem:  # the room stays playable; its next lobby change writes the index
            log.warning("room %s: index not repaired: %s", room_id, type(problem).__name__)

    async def _forget_owner(self, room_id: str) -> None:
        try:
            await self.owners.forget(room_id)
        except Exception as problem:  # left in the book: an adopter finds the room over and forgets it
            log.warning("room %s: owner not forgotten: %s", room_id, type(problem).__name__)

    # ---------------------------------------------------------------- orphans

    async def _orphan_loop(self) -> None:
        while True:
            await asyncio.sleep(ORPHAN_SECONDS)
            try:
                await self.adopt_orphans()
            except Exception as problem:  # Redis away: the next pass tries again
                log.warning("orphan pass failed", extra={"fields": {"error": type(problem).__name__}})

    async def adopt_orphans(self) -> list[str]:
        """One pass: record the rooms owned here that the book does not name yet, then take every
        room whose latest owner is not a live process. Returns the rooms adopted."""
        for room_id in sorted(self.ownership.held_rooms - self.recorded):
            room = self.rooms.held(room_id)
            if room is not None and not room.over:
                await self._record_owner(room_id)
        alive = await self.processes.alive()
        adopted = []
        for room_id in await self.owners.orphans(alive):
            if await self._adopt_orphan(room_id):
                adopted.append(room_id)
        return adopted

    async def _adopt_orphan(self, room_id: str) -> bool:
        if self.ownership.holds(room_id):
            await self._record_owner(room_id)  # ours already: the book named a dead process
            return False
        # Not taken: another process was first, or the dead owner's lease has not expired yet (a
        # later pass sees the room again while the book names a dead process).
        if not await self.ownership.acquire(room_id):
            return False
        try:
            room = self.rooms.held(room_id)
            if room is None:
                room = await self.rooms.get(room_id)  # loading it claims it and runs it here (`loaded`)
            elif not room.over:
                self.ownership.want(room)
                await self.ownership.took(room)
        except Exception:
            # Not running it here: do not keep a lease that would stop anyone else from doing so.
            with contextlib.suppress(Exception):
                await self.ownership.release(room_id)
            raise
        if room is None or room.over:  # gone from the store, or it ended: out of the book
            await self.owners.forget(room_id)
            await self.ownership.release(room_id)
            return False
        log.info("orphaned room adopted", extra={"fields": {"room": room_id, "process": self.process_id}})
        return True
