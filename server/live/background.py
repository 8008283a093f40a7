"""The background tasks of the pieces that tie this process's rooms to the others (ownership,
following, presence, publishing, adoption): one set, started with them and cancelled together."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


class Background:
    """Tasks spawned by the coordination pieces; `running` between `start` and `close`."""

    def __init__(self) -> None:
        self.running = False
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(self) -> None:
        """From now on the pieces work (publish, catch up, adopt)."""
        self.running = True

    def spawn(self, coroutine: Coroutine[Any, Any, None], name: str | None = None) -> asyncio.Task[None]:
        """Run `coroutine` in the background (cancelled by `close` if still running)."""
        task = asyncio.get_running_loop().create_task(coroutine, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    @property
    def tasks(self) -> frozenset[asyncio.Task[Any]]:
        """The tasks still running."""
        return frozenset(self._tasks)

    def stop(self) -> None:
        """From now on the pieces start no new work (what is under way goes on until `close`)."""
        self.running = False

    async def close(self) -> None:
        """Stop, cancel every task and wait for them."""
        self.stop()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
