"""The lobby: the listed, unfinished rooms, pushed to subscribed connections when a line changes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from ..store import Store
from ..table import facts
from .change import JSON, CommittedChange
from .room import LiveRoom, Member, RoomListener

LOBBY_COALESCE_SECONDS = 0.05


class Lobby(RoomListener):
    """Lobby subscribers, and a push to them (one per burst of changes) when a room's line changes."""

    def __init__(self, store: Store, live_room: Callable[[str], LiveRoom | None]) -> None:
        self.store = store
        self.live_room = live_room  # the registry's lookup of rooms held by this process
        self.subscribers: set[Member] = set()
        self._last: dict[str, JSON | None] = {}
        self._task: asyncio.Task[None] | None = None

    def opened(self, room: LiveRoom) -> None:
        """Remember the room's line as stored."""
        self._last[room.room_id] = facts.lobby_entry(room.table)

    def closed(self, room: LiveRoom) -> None:
        """Forget the room's line."""
        self._last.pop(room.room_id, None)

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """Push the lobby if the room's line changed."""
        if not change.stored:
            return
        entry = facts.lobby_entry(room.table)
        if entry != self._last.get(room.room_id):
            self._last[room.room_id] = entry
            self.changed()

    def subscribe(self, member: Member, wanted: bool) -> None:
        """Start or stop `lobby` pushes to a connection."""
        if wanted:
            self.subscribers.add(member)
        else:
            self.subscribers.discard(member)

    async def rooms(self) -> list[JSON]:
        """The lobby: listed, unfinished rooms, with live spectator counts for rooms held here."""
        rooms = []
        for room_id, entry in (await self.store.lobby()).items():
            live = self.live_room(room_id)
            if live is not None:
                current = facts.lobby_entry(live.table)
                if current is None:
                    continue
                entry = {**current, "spectators": facts.spectators(live.table)}
            rooms.append(entry)
        rooms.sort(key=lambda entry: entry["created_at"])
        return rooms

    def changed(self) -> None:
        """Push the lobby to subscribers (coalesced: one push per burst of changes)."""
        if not self.subscribers or (self._task is not None and not self._task.done()):
            return
        self._task = asyncio.get_running_loop().create_task(self._push())

    async def _push(self) -> None:
        await asyncio.sleep(LOBBY_COALESCE_SECONDS)
        rooms = await self.rooms()
        for member in list(self.subscribers):
            member.push({"type": "lobby", "rooms": rooms})

    async def stop(self) -> None:
        """Cancel a push under way."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
