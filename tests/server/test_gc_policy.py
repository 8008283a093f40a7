"""The garbage collector's passes on a schedule (server/gc_policy.py): CPython starts none by itself while
the schedule runs (neither young nor full passes), a pass comes when the interval is over or the memory
has grown by a quarter, and each pass is timed in the metrics."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from server.__main__ import parse_args
from server.gc_policy import DEFAULT_FULL_INTERVAL, FullPasses, resident_bytes, scheduled_full_passes
from server.metrics import Metrics


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    before = gc.get_threshold(), gc.isenabled()
    yield
    gc.set_threshold(*before[0])
    if before[1]:
        gc.enable()
    else:
        gc.disable()


def test_installing_takes_every_pass_from_cpython_and_uninstalling_gives_them_back() -> None:
    assert gc.isenabled()
    passes = FullPasses(60.0)
    passes.install()
    assert not gc.isenabled()
    passes.install()  # twice: still the original state to give back
    passes.uninstall()
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off_after_uninstalling() -> None:
    gc.disable()
    passes = FullPasses(60.0)
    passes.install()
    passes.uninstall()
    assert not gc.isenabled()


def test_no_young_pass_runs_by_itself_while_installed() -> None:
    # Why the schedule takes the young passes too: at 1,000 tables they held the loop 10-45 ms each.
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    passes = FullPasses(60.0)
    gc.callbacks.append(count)
    passes.install()
    try:
        kept = [[index] for index in range(50 * gc.get_threshold()[0])]  # far past the young threshold
        assert collections == []
    finally:
        passes.uninstall()
        gc.callbacks.remove(count)
    del kept


def test_a_pass_is_due_when_the_interval_is_over() -> None:
    clock = Clock()
    passes = FullPasses(300.0, clock=clock, resident=lambda: 1000, collect=lambda: 0)
    clock.now += 299.0
    assert passes.due() is None
    clock.now += 1.0
    assert passes.due() == "schedule"
    passes.run("schedule")
    assert passes.due() is None  # the interval counts from the last pass


def test_a_pass_comes_early_when_memory_grew_by_a_quarter_since_the_last() -> None:
    clock = Clock()
    memory = [1000]
    passes = FullPasses(300.0, clock=clock, resident=lambda: memory[0], collect=lambda: 0, min_growth=10)
    memory[0] = 1250
    assert passes.due() is None
    memory[0] = 1251
    assert passes.due() == "memory"
    passes.run("memory")  # the memory after the pass is the new baseline
    assert passes.due() is None
    memory[0] = 1564
    assert passes.due() == "memory"


def test_a_small_process_must_grow_by_the_minimum_too() -> None:
    memory = [1000]
    passes = FullPasses(300.0, resident=lambda: memory[0], collect=lambda: 0, min_growth=500)
    memory[0] = 1400  # more than a quarter, less than the minimum
    assert passes.due() is None
    memory[0] = 1501
    assert passes.due() == "memory"


def test_each_pass_is_timed_and_counted_in_the_metrics() -> None:
    metrics = Metrics()
    passes = FullPasses(300.0, metrics, collect=lambda: 42)
    passes.run("memory")
    passes.run("schedule")
    assert metrics.registry.get_sample_value("whist_gc_full_pass_seconds_count", {"reason": "memory"}) == 1
    assert metrics.registry.get_sample_value("whist_gc_full_pass_seconds_count", {"reason": "schedule"}) == 1
    assert metrics.registry.get_sample_value("whist_gc_full_pass_collected_total") == 84
    assert passes.passes == 2


def test_a_real_pass_frees_a_cycle_that_the_young_generations_let_through() -> None:
    class Node:
        partner: object = None

    gc.collect()
    metrics = Metrics()
    passes = FullPasses(300.0, metrics)
    passes.install()  # no pass but the scheduled one may take the cycle
    try:
        first, second = Node(), Node()
        first.partner, second.partner = second, first
        del first, second
        passes.run("schedule")
    finally:
        passes.uninstall()
    assert (metrics.registry.get_sample_value("whist_gc_full_pass_collected_total") or 0) >= 2


async def test_the_schedule_runs_passes_while_the_server_runs_and_stops_with_it() -> None:
    async with scheduled_full_passes(0.01) as passes:
        assert passes is not None and not gc.isenabled()
        for _ in range(2000):  # the first check comes after a second: wait for it, not for a time
            if passes.passes:
                break
            await asyncio.sleep(0.01)
        assert passes.passes >= 1
    assert gc.isenabled()


async def test_an_interval_of_zero_leaves_cpythons_rule() -> None:
    before = gc.get_threshold()
    async with scheduled_full_passes(0) as passes:
        assert passes is None and gc.get_threshold() == before and gc.isenabled()


def test_the_command_line_sets_the_interval() -> None:
    assert parse_args([]).gc_full_interval == DEFAULT_FULL_INTERVAL
    assert parse_args(["--gc-full-interval", "0"]).gc_full_interval == 0


def test_the_resident_memory_is_read() -> None:
    assert resident_bytes() > 1024 * 1024
