"""The turn clock's timer: when a human's clock runs out (`Table.clock`, a wall-clock deadline stored
with the table), the room's owner applies `clock.turn_expired`, and the bot driver plays that one
action for the player (server/table/clock.py says what an expiry does).

The deadline is the table's, not this timer's: a reload, a failover or a new owner arms a timer for
what is left of it, never a fresh one. Only the process that owns the room runs the timer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from ..table import TableError, TurnClock, clock
from .change import CommittedChange
from .room import LiveRoom, Owner, RoomListener, owns_every_room

log = logging.getLogger("whist.rooms")

EXPIRY_RETRY_SECONDS = 1.0  # an expiry the room could not apply (the store did not answer)
LATE_MARGIN_SECONDS = 0.05  # fire just after the deadline, never just before it


class TurnClocks(RoomListener):
    """One timer per room, for the clock that runs now."""

    def __init__(self, owner: Owner = owns_every_room, wall_clock: Callable[[], float] = time.time) -> None:
        self.owner = owner  # whether this process runs the room's timers (several processes: its owner)
        self.wall_clock = wall_clock
        self._timers: dict[LiveRoom, tuple[TurnClock, asyncio.TimerHandle]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """The clock may have started, moved to another seat, or stopped."""
        self.arm(room)

    def opened(self, room: LiveRoom) -> None:
        """A room created or loaded here: its stored clock, if any, keeps running."""
        self.arm(room)

    async def owned(self, room: LiveRoom) -> None:
        """This process runs the room's timers from now on (what is left of the deadline)."""
        self.arm(room)

    async def disowned(self, room: LiveRoom) -> None:
        """Another process runs the room's timers now."""
        self.closed(room)

    def closed(self, room: LiveRoom) -> None:
        """Cancel the room's timer."""
        armed = self._timers.pop(room, None)
        if armed is not None:
            armed[1].cancel()

    def busy(self, room: LiveRoom) -> bool:
        """Keep the room in memory while an expiry is being applied."""
        return bool(self._tasks)

    def arm(self, room: LiveRoom, delay: float | None = None) -> None:
        """A timer for the room's clock (the one armed already stays if it is for the same clock)."""
        running = room.table.clock
        armed = self._timers.get(room)
        if armed is not None and armed[0] == running and delay is None:
            return
        self.closed(room)
        if running is None or not self.owner.owns(room):
            return
        if delay is None:
            delay = max(0.0, running.deadline - self.wall_clock()) + LATE_MARGIN_SECONDS
        handle = asyncio.get_running_loop().call_later(delay, self._expire, room, running)
        self._timers[room] = (running, handle)

    def _expire(self, room: LiveRoom, running: TurnClock) -> None:
        self._timers.pop(room, None)
        if room.table.clock != running or not self.owner.owns(room):
            return
        task = asyncio.get_running_loop().create_task(self._apply(room, running))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _apply(self, room: LiveRoom, running: TurnClock) -> None:
        try:
            outcome = await room.apply(
                lambda table: clock.turn_expired(table, running.seat, self.wall_clock()), human=False)
        except TableError as problem:
            # Nothing else may come to re-arm it (the player is away): try again shortly.
            log.warning("room %s: turn clock: %s", room.room_id, problem.message)
            if room.table.clock == running:
                self.arm(room, EXPIRY_RETRY_SECONDS)
            return
        if outcome is not None and outcome.events:
            log.info("turn clock ran out", extra={"fields": {"room": room.room_id, "seat": running.seat}})
        elif room.table.clock == running:  # not due by this process's clock (clocks differ a little)
            self.arm(room)
