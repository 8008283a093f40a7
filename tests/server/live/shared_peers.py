"""What the checks of shared rooms (several processes' worth of `Tables` on in-memory coordination
twins) have in common: a connection stand-in and a wait for a condition."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

JSON = dict[str, Any]


class Peer:
    """A connection stand-in that keeps what it is sent."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.wants_events = True
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
