"""The periodic pass (server/coord/periodic.py) every heartbeat, lease renewal and presence refresh
runs on: a pass every `interval` seconds (the first after one interval), a failed pass logged and the
next one run anyway, `start` twice runs one loop, `stop` ends it."""

from __future__ import annotations

import asyncio
import logging

import pytest

from server.coord.periodic import Periodic


class Counting(Periodic):
    """Counts its passes; fails the ones asked to."""

    interval = 0.02

    def __init__(self, failing: int = 0) -> None:
        super().__init__()
        self.passes = 0
        self.failing = failing

    async def tick(self) -> None:
        self.passes += 1
        if self.passes <= self.failing:
            raise ConnectionError("Redis does not answer")


async def test_passes_run_every_interval_until_stopped() -> None:
    work = Counting()
    work.start()
    assert work.passes == 0, "the first pass waits one interval"
    await asyncio.sleep(0.2)
    await work.stop()
    done = work.passes
    assert done >= 2
    await asyncio.sleep(0.1)
    assert work.passes == done, "stopped"


async def test_a_failed_pass_is_logged_and_the_next_one_runs(caplog: pytest.LogCaptureFixture) -> None:
    work = Counting(failing=2)
    with caplog.at_level(logging.WARNING, logger="whist.coord"):
        work.start()
        await asyncio.sleep(0.3)
        await work.stop()
    assert work.passes > 2, "passes go on after failures"
    assert sum("coordination pass failed" in record.message for record in caplog.records) == 2


async def test_starting_twice_runs_one_loop_and_stopping_twice_is_harmless() -> None:
    one, two = Counting(), Counting()
    one.start()
    one.start()
    two.start()
    await asyncio.sleep(0.25)
    await one.stop()
    await two.stop()
    await one.stop()
    assert abs(one.passes - two.passes) <= 2, "the same pace as a loop started once"
