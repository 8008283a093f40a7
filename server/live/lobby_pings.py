"""Lobby pings: the lobby index is in the store; a change of a lobby line here is announced on one
channel so that every process pushes the lobby to its own subscribers (and a ping heard makes this
process push its lobby)."""

from __future__ import annotations

from collections.abc import Callable

from ..coord import Change, Fanout
from ..table import facts
from .background import Background
from .change import JSON, CommittedChange
from .publisher import LOBBY_CHANNEL, Publisher
from .room import LiveRoom, RoomListener


class LobbyPings(RoomListener):
    """Pings the other processes when a lobby line changes here; pushes the lobby when pinged."""

    def __init__(self, publisher: Publisher, fanout: Fanout, lobby_changed: Callable[[], None],
                 background: Background) -> None:
        self.publisher = publisher
        self.fanout = fanout
        self.lobby_changed = lobby_changed  # the lobby's push to this process's subscribers
        self.background = background
        self._lines: dict[str, JSON | None] = {}  # room -> its lobby line last pinged about

    async def start(self) -> None:
        """Hear the other processes' pings."""
        await self.fanout.subscribe(LOBBY_CHANNEL, self._pinged)

    def changed(self) -> None:
        """Tell every process that a lobby line changed (they push the lobby to their subscribers)."""
        if self.background.running and self.fanout.crosses_processes:
            self.publisher.send(LOBBY_CHANNEL, {"lobby": True})

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """A stored change made here that moved the room's lobby line: ping."""
        if change.received or not change.stored or not self.background.running \
                or not self.fanout.crosses_processes:
            return
        line = facts.lobby_entry(room.table)
        if room.room_id not in self._lines or line != self._lines[room.room_id]:
            self._lines[room.room_id] = line
            self.changed()

    def closed(self, room: LiveRoom) -> None:
        """Forget the room's line."""
        self._lines.pop(room.room_id, None)

    def _pinged(self, message: Change) -> None:
        self.lobby_changed()
