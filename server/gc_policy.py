"""When the cyclic garbage collector runs: on a schedule, not on CPython's allocation counts.

A server's table states live a second or two between actions: long enough to be found alive by the
collector, then freed by reference counting, not by it. CPython's own rule scanned them again and
again. Its full passes (every tracked object) fired every two seconds at 1,000 human-paced tables
and held the event loop about 350 ms each. Its young passes, once the full ones were taken away, still
scanned every state made since the last of them: at 1,000 tables a second-generation pass every second
or two took 10-45 ms, the first-generation ones up to 25 ms, 5% of the process's CPU in all, and they
freed about 40 objects a second (docs/benchmarks.md, "the collector's young passes"). Each such pause
let the actions of the next 30-50 ms pile up behind it: the players' p99.

So no pass runs by itself (`gc.disable()`); a full pass runs on a schedule (`--gc-full-interval`, default
every 5 minutes) or sooner when the process's resident memory has grown by a quarter (and by 256 MiB
at least) since the last one: cycles only the collector frees (the objects of closed connections)
must not pile up. Each full pass is timed in `/metrics`.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import resource
import time
from collections.abc import AsyncIterator, Callable
from typing import Protocol

DEFAULT_FULL_INTERVAL = 300.0
# A full pass comes early once the resident memory exceeds the size after the last one by this share,
# and by at least MIN_GROWTH_BYTES (a server that grows while its tables open and play their first
# deals holds live data, not garbage: it must not pause for it again and again).
MEMORY_GROWTH = 0.25
MIN_GROWTH_BYTES = 256 * 1024 * 1024
CHECK_SECONDS = 1.0


class FullPassObserver(Protocol):
    """Where the time of each full pass goes (the server's `Metrics`)."""

    def observe_gc_full_pass(self, reason: str, seconds: float, collected: int) -> None:
        """Record one full pass: why it ran (schedule, memory), how long it took, what it freed."""


def resident_bytes() -> int:
    """The process's resident memory now (Linux's /proc), else its peak (other systems)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _collect_everything() -> int:
    return gc.collect(2)


class FullPasses:
    """Runs the collector's passes on a schedule instead of CPython's allocation counts.

    `install()` stops CPython from starting any pass by itself, `run_forever()` makes the full passes,
    `uninstall()` gives the collector back to CPython. The clock, the memory reading and the
    collection itself are parameters, so the decisions can be tested without waiting.
    """

    def __init__(self, interval: float = DEFAULT_FULL_INTERVAL, observer: FullPassObserver | None = None, *,
                 growth: float = MEMORY_GROWTH, min_growth: int = MIN_GROWTH_BYTES,
                 clock: Callable[[], float] = time.monotonic,
                 resident: Callable[[], int] = resident_bytes,
                 collect: Callable[[], int] = _collect_everything) -> None:
        if interval <= 0:
            raise ValueError("the full-pass interval must be positive")
        self.interval = interval
        self.observer = observer
        self.growth = growth
        self.min_growth = min_growth
        self.clock = clock
        self.resident = resident
        self.collect = collect
        self.passes = 0
        self._last = clock()
        self._baseline = resident()
        self._was_enabled: bool | None = None  # set while installed

    def install(self) -> None:
        """Stop CPython from starting passes by itself (young and full alike)."""
        if self._was_enabled is None:
            self._was_enabled = gc.isenabled()
            gc.disable()

    def uninstall(self) -> None:
        """Give the collector back to CPython (as it was before `install`)."""
        if self._was_enabled is not None:
            if self._was_enabled:
                gc.enable()
            self._was_enabled = None

    def due(self) -> str | None:
        """Why a full pass should run now ("schedule", "memory"), or None."""
        if self.clock() - self._last >= self.interval:
            return "schedule"
        if self.resident() > self._baseline + max(self._baseline * self.growth, self.min_growth):
            return "memory"
        return None

    def run(self, reason: str) -> None:
        """Make one full pass now (the observer hears how long the process stood still for it)."""
        started = time.perf_counter()
        collected = self.collect()
        seconds = time.perf_counter() - started
        self.passes += 1
        self._last = self.clock()
        self._baseline = self.resident()
        if self.observer is not None:
            self.observer.observe_gc_full_pass(reason, seconds, collected)

    async def run_forever(self, check_seconds: float = CHECK_SECONDS) -> None:
        """Check every `check_seconds` whether a full pass is due, and make it; until cancelled."""
        while True:
            await asyncio.sleep(check_seconds)
            reason = self.due()
            if reason is not None:
                self.run(reason)


@contextlib.asynccontextmanager
async def scheduled_full_passes(interval: float,
                                observer: FullPassObserver | None = None) -> AsyncIterator[FullPasses | None]:
    """The collector on the schedule while the block runs (`interval` 0: CPython's own rule)."""
    if interval <= 0:
        yield None
        return
    passes = FullPasses(interval, observer)
    passes.install()
    task = asyncio.ensure_future(passes.run_forever())
    try:
        yield passes
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        passes.uninstall()
