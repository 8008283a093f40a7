"""How late the event loop runs a timer: every callback waiting on a busy or stalled loop (a frame to
read, a push to write, a Redis answer) waits about as long, so this is the server's own queueing delay,
seen from inside. A stall (a long collection, a slow callback, a CPU taken by another process) shows
here before it shows in the players' latency."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

DEFAULT_INTERVAL = 0.05


async def watch_loop_lag(observe: Callable[[float], None], interval: float = DEFAULT_INTERVAL) -> None:
    """Sleep `interval` again and again and report, each time, how late the wake-up came (seconds)."""
    while True:
        due = time.monotonic() + interval
        await asyncio.sleep(interval)
        observe(max(0.0, time.monotonic() - due))
