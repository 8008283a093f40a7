"""The rooms this process serves: creating, loading from the store (once, however many ask at the same
time), and dropping finished rooms nobody uses. Separate from the room itself."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Sequence

from ..store import Store
from ..table import Table, errors, facts, from_stored, presence
from .room import LiveRoom, RoomListener

Gate = Callable[[], contextlib.AbstractContextManager[None]]  # marks a human's request (see BotScheduler)


class RoomRegistry:
    """Room id -> live room, for this process."""

    def __init__(self, store: Store, human_gate: Gate) -> None:
        self.store = store
        self.human_gate = human_gate
        self.listeners: list[RoomListener] = []
        self.rooms: dict[str, LiveRoom] = {}
        self._loading: dict[str, asyncio.Future[LiveRoom | None]] = {}

    def listen(self, listener: RoomListener) -> None:
        """Add a listener to every room opened from now on."""
        self.listeners.append(listener)

    def held(self, room_id: str) -> LiveRoom | None:
        """The room if this process holds it now (no loading)."""
        return self.rooms.get(room_id)

    def open(self, table: Table) -> LiveRoom:
        """A room for `table` (new or just loaded), served here from now on."""
        room = LiveRoom(table, self.store, self.listeners, self.human_gate)
        self.rooms[table.room_id] = room
        for listener in self.listeners:
            listener.opened(room)
        return room

    async def get(self, room_id: str) -> LiveRoom | None:
        """The live room, loading it from the store if this process does not hold it yet."""
        room = self.rooms.get(room_id)
        if room is not None and room.gone:
            self.drop(room)
        elif room is not None:
            return room
        pending = self._loading.get(room_id)
        if pending is not None:
            return await pending
        future: asyncio.Future[LiveRoom | None] = asyncio.get_running_loop().create_future()
        self._loading[room_id] = future
        try:
            room = await self._load(room_id)
            future.set_result(room)
            return room
        except BaseException as problem:
            future.set_exception(problem)
            future.exception()  # retrieved here: concurrent callers, if any, get it too
            raise
        finally:
            del self._loading[room_id]

    async def _load(self, room_id: str) -> LiveRoom | None:
        stored = await self.store.load(room_id)
        if stored is None:
            return None
        entries = await self.store.read_log(room_id) if stored.state.get("session") is not None else []
        # Humans are away until they come back (after a restart: since the room was loaded).
        table = presence.away_from_start(from_stored(stored.state, stored.version, entries), time.monotonic())
        room = self.open(table)
        for listener in self.listeners:
            await listener.loaded(room)  # e.g. claiming the room's lease (server/live/shared.py)
        return room

    async def require(self, room_id: str) -> LiveRoom:
        """The room, or `NoSuchRoom`."""
        room = await self.get(room_id)
        if room is None:
            raise errors.NoSuchRoom(f"no room with id {room_id!r}")
        return room

    async def load_all(self) -> None:
        """Load every stored room so that unfinished ones play on after a restart."""
        for room_id in await self.store.room_ids():
            room = await self.get(room_id)
            if room is not None:
                self.forget_if_idle(room)

    def forget_if_idle(self, room: LiveRoom) -> None:
        """Drop a finished room nobody uses from memory (the store keeps it)."""
        if room.members or not facts.over(room.table) or any(lst.busy(room) for lst in self.listeners):
            return
        self.drop(room)

    def drop(self, room: LiveRoom) -> None:
        """Stop serving `room` here (its listeners hear `closed`), whoever is still in it: a finished
        room nobody uses, or one the store no longer holds (`LiveRoom.gone`), whose connections keep
        their copy while anyone coming in is answered by the store (and the archive)."""
        if self.rooms.get(room.room_id) is room:
            del self.rooms[room.room_id]
            for listener in self.listeners:
                listener.closed(room)

    def close(self, rooms: Sequence[LiveRoom] | None = None) -> None:
        """Tell the listeners that these rooms (default: all) are no longer served."""
        for room in list(rooms if rooms is not None else self.rooms.values()):
            for listener in self.listeners:
                listener.closed(room)
