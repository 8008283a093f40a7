"""One seat, one connection, on every process: when a seat's token is resumed on a newer connection
(another tab, a phone beside a laptop, maybe through another process), the table's stored `claims`
count for that seat goes up, and any older connection holding the seat becomes a spectator of the
room, wherever it is connected. This listener watches every change (this process's and those it
follows from the others) and asks the port that knows the connections to move them."""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from .change import CommittedChange
from .room import LiveRoom, Member, RoomListener

log = logging.getLogger("whist.rooms")


class Claims(Protocol):
    """What the listener needs of the connections' book (`Tables`)."""

    def outclaimed(self, room: LiveRoom) -> list[Member]:
        """The room's connections here whose seat a newer connection has resumed since."""

    async def to_spectator(self, room: LiveRoom, member: Member) -> None:
        """Keep the connection in the room, as a spectator."""


class SeatClaims(RoomListener):
    """Moves outclaimed connections to the rail after each change."""

    def __init__(self, claims: Claims) -> None:
        self.claims = claims
        self._tasks: set[asyncio.Task[None]] = set()

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """A change (maybe a resume made elsewhere): any connection here that lost its seat moves."""
        for member in self.claims.outclaimed(room):
            task = asyncio.get_running_loop().create_task(self.claims.to_spectator(room, member))
            self._tasks.add(task)
            task.add_done_callback(self._done)

    def busy(self, room: LiveRoom) -> bool:
        """Keep the room while a move is under way."""
        return bool(self._tasks)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("moving an outclaimed connection failed", exc_info=task.exception())
