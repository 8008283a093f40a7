"""Helpers of the coordination tests (not a conftest: test modules import them by name)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from server.coord import Coordination

MakeCoord = Callable[..., Coordination]


async def eventually(check: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    """Await `check()` (sync or async) until it returns a true value; fails after `timeout` seconds
    (generous: the machine is shared, and no test asserts how fast it happens)."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if asyncio.iscoroutine(result):
            result = await result
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still false after {timeout} s")
        await asyncio.sleep(0.05)
