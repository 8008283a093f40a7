"""When the cyclic garbage collector makes its full passes (the ones that scan every tracked object).

CPython starts a full pass once the objects promoted to its oldest generation since the last one reach
a quarter of those that survived it. A server's table states live a second or two between actions:
long enough to be promoted, then freed by reference counting, not by the collector. At 1,000
human-paced tables that rule fired every two seconds and each pass held the event loop for about
350 ms (docs/operations.md, "Garbage collector"), so one action in a hundred waited for it.

Here the young generations keep their thresholds (they catch most cycles, cheaply); the full pass runs
on a schedule (`--gc-full-interval`, default every 5 minutes) or sooner when the process's resident
memory has grown by a quarter (and by 256 MiB at least) since the last full pass (cycles that only it
frees, such as the objects of closed connections, must not pile up). Each full pass is timed in `/metrics`.
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
# The oldest generation's threshold while the schedule runs the full passes (CPython's is 10; its largest
# value, a C int, means "never by itself").
NEVER = 2**31 - 1
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
    """Runs the collector's full passes on a schedule instead of CPython's promotion rule.

    `install()` takes the full passes away from CPython (the young generations keep theirs),
    `run_forever()` makes them, `uninstall()` gives them back. The clock, the memory reading and the
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
        self._thresholds: tuple[int, int, int] | None = None

    def install(self) -> None:
        """Stop CPython from starting full passes by itself (kept: the young generations' thresholds)."""
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, NEVER)

    def uninstall(self) -> None:
        """Give the full passes back to CPython."""
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

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
    """The full passes on a schedule while the block runs (`interval` 0: CPython's own rule)."""
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
