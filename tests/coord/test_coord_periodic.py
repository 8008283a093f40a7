"""The periodic pass (server/coord/periodic.py) every heartbeat, lease renewal and presence refresh
runs on: a pass every `interval` seconds (the first after one interval), a failed pass logged and the
next one run anyway, `start` twice runs one loop, `stop` ends it."""

from __future__ import annotations

import asyncio
import logging

import pytest
from coord_helpers import eventually

from server.coord.periodic import Periodic


class Counting(Periodic):
    """Counts its passes and the tasks they ran in; fails the first `failing` ones."""

    interval = 0.02

    def __init__(self, failing: int = 0) -> None:
        super().__init__()
        self.passes = 0
        self.failing = failing
        self.tasks: set[asyncio.Task[object] | None] = set()

    async def tick(self) -> None:
        self.passes += 1
        self.tasks.add(asyncio.current_task())
        if self.passes <= self.failing:
            raise ConnectionError("Redis does not answer")


async def test_passes_run_every_interval_until_stopped() -> None:
    work = Counting()
    work.start()
    assert work.passes == 0, "the first pass waits one interval"
    await eventually(lambda: work.passes >= 3, timeout=10, what="three passes")
    await work.stop()
    done = work.passes
    await asyncio.sleep(0.1)
    assert work.passes == done, "stopped"


async def test_a_failed_pass_is_logged_and_the_next_one_runs(caplog: pytest.LogCaptureFixture) -> None:
    work = Counting(failing=2)
    with caplog.at_level(logging.WARNING, logger="whist.coord"):
        work.start()
        await eventually(lambda: work.passes >= 4, timeout=10, what="passes after the failures")
        await work.stop()
    assert sum("coordination pass failed" in record.message for record in caplog.records) == 2


async def test_starting_twice_runs_one_loop_and_stopping_twice_is_harmless() -> None:
    work = Counting()
    work.start()
    work.start()
    await eventually(lambda: work.passes >= 4, timeout=10, what="four passes")
    await work.stop()
    await work.stop()
    assert len(work.tasks) == 1, "one loop"
    work.start()  # a stopped pass can start again
    await eventually(lambda: len(work.tasks) == 2, timeout=10, what="a new loop")
    await work.stop()
