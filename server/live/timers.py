"""Presence and grace timers: when a seated player's connection is gone, the bot takes the seat over
once the room's grace period ends (a `grace_expired` command, so everyone is told)."""

from __future__ import annotations

import asyncio
import logging
import time

from ..table import TableError, facts, presence
from .change import CommittedChange
from .room import LiveRoom, Owner, RoomListener, owns_every_room

log = logging.getLogger("whist.rooms")

GRACE_RETRY_SECONDS = 1.0  # after a grace expiry the room could not apply (the store did not answer)


class GraceTimers(RoomListener):
    """Arms a timer per seat whose player departed (or was away when the room was loaded)."""

    def __init__(self, owner: Owner = owns_every_room) -> None:
        self._timers: dict[LiveRoom, list[asyncio.TimerHandle]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.owner = owner  # whether this process runs the room's timers (several processes: its owner only)

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """A seat left with no connection starts its grace period."""
        seat = (change.presence or {}).get("departed")
        if seat is not None and seat in room.table.presence.away_since:
            self.arm(room, int(seat))

    def opened(self, room: LiveRoom) -> None:
        """Every human of a loaded room is away until they come back."""
        for seat in room.table.presence.away_since:
            self.arm(room, seat)

    async def owned(self, room: LiveRoom) -> None:
        """This process runs the room's timers from now on: every away seat's grace period (what is
        left of it) runs here."""
        for seat in list(room.table.presence.away_since):
            self.arm(room, seat)

    async def disowned(self, room: LiveRoom) -> None:
        """Another process runs the room's timers now."""
        self.closed(room)

    def away(self, room: LiveRoom, seat: int) -> None:
        """A seat with no connection in any process starts its grace period."""
        self.arm(room, seat)

    def may_run(self, room: LiveRoom) -> bool:
        """Whether this process runs the room's timers (it owns the room)."""
        return self.owner.owns(room)

    def closed(self, room: LiveRoom) -> None:
        """Cancel the room's timers."""
        for timer in self._timers.pop(room, []):
            timer.cancel()

    def arm(self, room: LiveRoom, seat: int) -> None:
        """When the grace period ends, let the bot take the seat over (if the player is still away)."""
        if not self.may_run(room):
            return
        # What is left of the grace period (a room taken over from another process: since the seat's
        # player went away, not since now).
        since = room.table.presence.away_since.get(seat, time.monotonic())
        delay = max(0.0, room.table.options.grace_seconds - (time.monotonic() - since)) + 0.01
        self._call_later(room, delay, seat)

    def _call_later(self, room: LiveRoom, delay: float, seat: int) -> None:
        loop = asyncio.get_running_loop()
        timers = [timer for timer in self._timers.get(room, []) if timer.when() > loop.time()]
        timers.append(loop.call_later(delay, self._expire, room, seat))
        self._timers[room] = timers

    def _expire(self, room: LiveRoom, seat: int) -> None:
        if not self.may_run(room) or not facts.bot_playing(room.table, seat, time.monotonic()):
            return
        task = asyncio.get_running_loop().create_task(self._apply(room, seat))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _apply(self, room: LiveRoom, seat: int) -> None:
        try:
            outcome = await room.apply(lambda table: presence.grace_expired(table, seat, time.monotonic()))
        except TableError as problem:
            # Nothing else would wake the room's bots for this seat (no change may come): try again.
            log.warning("room %s: grace timer: %s", room.room_id, problem.message)
            if room in self._timers:  # not closed meanwhile
                self._call_later(room, GRACE_RETRY_SECONDS, seat)
            return
        if outcome is not None and outcome.events:
            log.info("bot took over", extra={"fields": {"room": room.room_id, "seat": seat}})
