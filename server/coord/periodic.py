"""A background task that runs one pass of work every `interval` seconds until closed.

Coordination state lives in Redis with expiry: leases, presence and process heartbeats all need to be
refreshed regularly. A failed pass (Redis unreachable) is logged and the next one tries again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

log = logging.getLogger("whist.coord")


class Periodic:
    """Subclasses implement `tick()`; `start()` runs it every `interval` seconds, `stop()` ends it."""

    interval: float = 1.0

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None

    async def tick(self) -> None:
        """One pass of the periodic work."""

    def start(self) -> None:
        """Start the periodic passes (the first runs after one interval)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=type(self).__name__)

    async def stop(self) -> None:
        """Stop the periodic passes (waits for a pass under way to be cancelled)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception as problem:  # Redis down or slow: the next pass tries again
                log.warning("coordination pass failed", extra={"fields": {
                    "task": type(self).__name__, "error": type(problem).__name__}})
