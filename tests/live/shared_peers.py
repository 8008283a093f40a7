"""What the checks of shared rooms (several processes' worth of `Tables` on in-memory coordination
twins) have in common: a connection stand-in and a wait for a condition."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from server.live import LiveRoom, NewRoom, RoomListener, SessionSpan, Tables

JSON = dict[str, Any]


class Peer:
    """A connection stand-in that keeps what it is sent."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.wants_events = True
        self.closing = False
        self.pushed: list[JSON] = []

    def push(self, message: JSON) -> None:
        self.pushed.append(message)

    def last_state(self) -> JSON | None:
        """The latest `state` pushed, if any."""
        states = [message for message in self.pushed if message["type"] == "state"]
        return states[-1] if states else None

    def version(self) -> int:
        """The room version of the latest state pushed (0: none)."""
        state = self.last_state()
        return int(state["room"]["version"]) if state else 0


async def eventually(check: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> None:
    """Wait until `check()` is true; fail after `timeout` seconds (a bound, not a measurement)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"{what}: still false after {timeout} s"
        await asyncio.sleep(0.01)


class Heard(RoomListener):
    """A listener that keeps the coordination hooks it hears: (hook, room id, seat or None)."""

    def __init__(self) -> None:
        self.hooks: list[tuple[str, str, int | None]] = []

    async def owned(self, room: LiveRoom) -> None:
        self.hooks.append(("owned", room.room_id, None))

    async def disowned(self, room: LiveRoom) -> None:
        self.hooks.append(("disowned", room.room_id, None))

    async def loaded(self, room: LiveRoom) -> None:
        self.hooks.append(("loaded", room.room_id, None))

    def away(self, room: LiveRoom, seat: int) -> None:
        self.hooks.append(("away", room.room_id, seat))

    def of(self, hook: str) -> list[tuple[str, str, int | None]]:
        """The hooks of one kind heard."""
        return [heard for heard in self.hooks if heard[0] == hook]


async def create(tables: Tables, host: Peer, seat: int | None = 0, grace: float = 60.0, deals: int = 1,
                 bot: str = "random") -> str:
    """A room created through `tables` (the creator seated at `seat`); its id."""
    request = NewRoom(ruleset="solo-whist", seat=seat, bot=bot, grace_seconds=grace,
                      session=SessionSpan(deals))
    return str((await tables.create_room(host, request))["room_id"])
