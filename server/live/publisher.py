"""The one sender of what a process tells the others about its rooms (`server/live/publishing.py` decides
what; this sends it).

Everything goes through one queue and one task, so a room's changes leave in the order they were
committed; what queued up meanwhile leaves together (the changes between two presence updates in one
batch of PUBLISHes). A publication is tried again until Redis takes it, and what each room's last one
reached (PUBLISH answers how many subscribers got it) is kept: `others_reached`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from ..coord import Coordination
from .change import JSON

log = logging.getLogger("whist.shared")

LOBBY_CHANNEL = "!lobby"  # not a room id (room ids are letters and digits)
# Pauses between attempts of a Redis step that must not be given up (a publish, a catch-up): the first,
# doubled up to the last. Right after Redis comes back, the first command on each pooled connection
# fails ("Connection closed by server"), so one failed attempt says little.
RETRY_FIRST_SECONDS = 0.05
RETRY_MAX_SECONDS = 1.0

SeatChange = tuple[str, int]  # ("arrived" or "departed", seat; SPECTATOR for a spectator)


class Publisher:
    """Publishes changes on the rooms' channels and shares changes of presence, in order."""

    def __init__(self, coord: Coordination) -> None:
        self.coord = coord
        self._outgoing: asyncio.Queue[tuple[str, JSON, SeatChange | None]] = asyncio.Queue()
        self._others_reached: dict[str, int] = {}  # room -> other processes its last publication reached

    def send(self, room_id: str, payload: JSON, seat_change: SeatChange | None = None) -> None:
        """Queue a publication on the room's channel (none if `payload` is empty) and, before it, a
        change of this process's presence there."""
        self._outgoing.put_nowait((room_id, payload, seat_change))

    def others_reached(self, room_id: str) -> int | None:
        """How many other processes the room's last publication reached (None: unknown)."""
        return self._others_reached.get(room_id)

    def forget(self, room_id: str | None = None) -> None:
        """Count the room's listeners (every room's, with None) as unknown again."""
        if room_id is None:
            self._others_reached.clear()
        else:
            self._others_reached.pop(room_id, None)

    async def flush(self, timeout: float) -> None:
        """Wait (at most `timeout` seconds) until everything queued has been sent."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._outgoing.join(), timeout)

    async def run(self) -> None:
        """Send what is queued, forever."""
        while True:
            batch = [await self._outgoing.get()]
            while not self._outgoing.empty():
                batch.append(self._outgoing.get_nowait())
            changes: list[tuple[str, JSON]] = []
            try:
                for room_id, payload, seat_change in batch:
                    if seat_change is not None:
                        await self._publish(changes)
                        await self._share_presence(room_id, seat_change)
                    if payload:
                        changes.append((room_id, payload))
                await self._publish(changes)
            finally:
                for _ in batch:
                    self._outgoing.task_done()

    async def _share_presence(self, room_id: str, seat_change: SeatChange) -> None:
        """Count a connection arrived or departed in the shared presence (once: the count here moves
        before Redis is asked, and the presence heartbeat rewrites this process's entries)."""
        kind, seat = seat_change
        try:
            if kind == "arrived":
                await self.coord.presence.connect(room_id, seat)
            else:
                await self.coord.presence.disconnect(room_id, seat)
        except Exception as problem:
            log.warning("presence not shared", extra={"fields": {"room": room_id,
                                                                 "error": type(problem).__name__}})

    async def _publish(self, changes: list[tuple[str, JSON]]) -> None:
        """Publish the changes gathered so far, in order, and forget them, trying again until Redis
        takes them. A change dropped here would be lost for good to the processes whose subscriber
        stayed connected (they have no reason to reload), and a player there would wait for a turn
        nobody tells them of. Late or twice is harmless: a receiver skips what it has and reloads on
        a gap."""
        if not changes:
            return
        batch = changes.copy()
        changes.clear()
        delay = RETRY_FIRST_SECONDS
        while True:
            try:
                reached = await self.coord.fanout.publish_many(batch)
                listening = self.coord.fanout.listeners  # this process's own subscriber counts too
                for (room_id, _), count in zip(batch, reached, strict=True):
                    if room_id != LOBBY_CHANNEL:
                        self._others_reached[room_id] = count - (room_id in listening)
                return
            except Exception as problem:
                log.warning("publish failed, retrying", extra={"fields": {
                    "rooms": sorted({room_id for room_id, _ in batch}), "error": type(problem).__name__}})
            await asyncio.sleep(delay)
            delay = min(RETRY_MAX_SECONDS, delay * 2)
