"""Room ownership among several processes on one store: leases and hand-over.

Every process that holds an unfinished room in memory wants its lease (`want`); the one holding it
owns the room and runs its bots and timers (the `Owner` port that `BotDriver` and `GraceTimers` ask).
When this process takes a room (`took`: at creation or load, when a lease pass took a free lease, when
the owner handed it over, or at an adoption), the room's listeners hear `owned`; when it stops owning
it (handed over, lease lost), `disowned`. Players' commands are applied by the process their connection
landed on, owner or not (the room's compare-and-set): ownership is about bots and timers only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from ..coord import Leases
from .background import Background
from .presence import RECONCILE_SECONDS, RemotePresence
from .publishing import Publishing
from .room import LiveRoom, RoomListener

log = logging.getLogger("whist.shared")


class Ownership(RoomListener):
    """Which rooms this process owns, taking and giving up their leases."""

    def __init__(self, process_id: str, leases: Leases, held: Callable[[str], LiveRoom | None],
                 presence: RemotePresence, publishing: Publishing, background: Background) -> None:
        self.process_id = process_id
        self.leases = leases
        self.held = held  # the room registry's lookup of rooms held here
        self.presence = presence  # where the other processes have connections
        self.publishing = publishing
        self.background = background

    def start(self) -> None:
        """Start the pass that hands over rooms owned here with connections only elsewhere."""
        self.background.spawn(self._hand_over_loop(), name="shared-hand-over")

    # ---------------------------------------------------------------- the owner port

    def owns(self, room: LiveRoom) -> bool:
        """Whether this process owns the room (runs its bots and timers)."""
        return self.leases.holds(room.room_id)

    def holds(self, room_id: str) -> bool:
        """`owns`, by the room's id."""
        return self.leases.holds(room_id)

    @property
    def held_rooms(self) -> frozenset[str]:
        """The rooms owned here."""
        return self.leases.held

    def want(self, room: LiveRoom) -> None:
        """Take the room whenever its lease is free (a process with connections there is a candidate)."""
        if not room.over:
            self.leases.want(room.room_id)

    def unwant(self, room: LiveRoom) -> None:
        """Claim the room no more."""
        self.leases.unwant(room.room_id)

    async def acquire(self, room_id: str) -> bool:
        """Take the room's lease if it is free (the lease decides between processes: `SET NX`)."""
        return await self.leases.acquire(room_id)

    async def release(self, room_id: str) -> bool:
        """Give the room's lease up (if it is still ours)."""
        return await self.leases.release(room_id)

    # ---------------------------------------------------------------- taking rooms

    async def claim(self, room: LiveRoom) -> bool:
        """A room just created or loaded here: want it, and take it now if its lease is free."""
        self.leases.want(room.room_id)
        try:
            return await self.leases.acquire(room.room_id)
        except Exception as problem:  # the store is away: the lease passes will claim it later
            log.warning("room %s: lease not taken: %s", room.room_id, type(problem).__name__)
            return False

    async def took(self, room: LiveRoom) -> None:
        """This process owns the room now: its listeners hear it (they follow it, run its bots and
        timers, record the owner)."""
        await room.owned()

    async def acquired(self, room_id: str) -> None:
        """A lease pass took the room's lease (it was free: its owner died or gave it up)."""
        room = self.held(room_id)
        if room is None:
            await self.leases.release(room_id)
            return
        log.info("room taken over", extra={"fields": {"room": room_id, "process": self.process_id}})
        await self.took(room)

    async def claim_released(self, room: LiveRoom) -> None:
        """Its owner gave the room up (`hand_over`): take it now if this process wants it."""
        if room.over or room.room_id not in self.leases.wanted or self.owns(room):
            return
        try:
            taken = await self.leases.acquire(room.room_id)
        except Exception:
            return  # the lease passes claim it later
        if taken:
            log.info("room taken over", extra={"fields": {"room": room.room_id, "process": self.process_id}})
            await self.took(room)

    # ---------------------------------------------------------------- giving rooms up

    async def lost(self, room_id: str) -> None:
        """A held lease turned out to be gone (or may have expired)."""
        room = self.held(room_id)
        if room is None:
            return
        log.warning("room lease lost", extra={"fields": {"room": room_id, "process": self.process_id}})
        await room.disowned()
        if room.over and not room.members:
            self.leases.unwant(room_id)

    def idle_elsewhere(self, room: LiveRoom) -> bool:
        """Whether the room is owned here, has no connection here and some in another process."""
        return (not room.members and not room.over and self.owns(room)
                and self.presence.elsewhere(room.room_id))

    async def hand_over_if_live_elsewhere(self, room: LiveRoom) -> None:
        """The owner's last connection in the room left while a live process has some (room affinity
        at the balancer sends a room's connections to one replica, but the creator's first connection
        landed anywhere): give the lease up, so that a process with connections there owns the room and
        this one stops applying its changes. The release is a compare-and-delete (no two owners); the
        others, told on the room's channel, claim it at once rather than at their next lease pass."""
        if not self.idle_elsewhere(room) or not await self.presence.live_elsewhere(room.room_id):
            return
        room_id = room.room_id
        self.leases.unwant(room_id)
        try:
            released = await self.leases.release(room_id)
        except Exception as problem:  # Redis away: keep the room (the lease may still be ours)
            log.warning("room %s: not handed over: %s", room_id, type(problem).__name__)
            self.leases.want(room_id)
            return
        if released:
            self.publishing.released(room_id)
        await room.disowned()
        log.info("room handed over", extra={"fields": {"room": room_id, "process": self.process_id}})

    def closed(self, room: LiveRoom) -> None:
        """The room left this process's memory: give up its lease."""
        self.leases.unwant(room.room_id)
        if self.background.running:
            self.background.spawn(self._release(room.room_id))

    async def _release(self, room_id: str) -> None:
        with contextlib.suppress(Exception):
            await self.leases.release(room_id)

    async def _hand_over_loop(self) -> None:
        """Rooms owned here with no connection here while another process has some (e.g. taken over
        at a failover by a process that only had the room in memory): hand them over."""
        while True:
            await asyncio.sleep(RECONCILE_SECONDS)
            for room_id in self.presence.rooms_elsewhere():
                room = self.held(room_id)
                if room is None or not self.idle_elsewhere(room):
                    continue
                try:
                    await self.hand_over_if_live_elsewhere(room)
                except Exception:
                    log.exception("room %s: hand-over failed", room_id)
