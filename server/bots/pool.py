"""Bot decisions away from the event loop: a process pool with an async API.

An expert decision takes up to a few hundred milliseconds of CPU; run on the event loop it would stall
every table of the process. `DecisionPool` sends each decision to a worker process
(`concurrent.futures.ProcessPoolExecutor`, `spawn` start method so that no event-loop state is
inherited) and awaits it, so the loop keeps serving humans meanwhile:

    pool = DecisionPool(workers=2)
    action = await pool.decide("expert", deal.view(seat), seed)
    ...
    pool.close()            # or: async with DecisionPool() as pool: ...

A decision is a pure function of (bot, view, seed) (docs/bots.md), so it does not matter which worker
takes it: the action is the one the bot would return in this process. A bot's `BotError` is raised to
the caller; a worker that dies raises `concurrent.futures.process.BrokenProcessPool`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from types import TracebackType
from typing import Any

from .base import Bot, load_bot

_BOTS: dict[str, Bot] = {}  # per worker process: one bot object per name, made on first use


def _warm_up() -> None:
    """Import the bots when a worker starts, so that the first decision does not pay for it."""
    import server.bots  # noqa: F401


def decide_in_worker(bot: str, view: Mapping[str, Any], seed: str, budget_ms: float) -> str:
    """What a worker runs: the named bot's decision (module-level so that it can be pickled)."""
    if bot not in _BOTS:
        _BOTS[bot] = load_bot(bot)
    return _BOTS[bot].decide(view, seed, budget_ms)


class DecisionPool:
    """Worker processes that make bot decisions for asyncio code."""

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError("a decision pool needs at least one worker")
        self.workers = workers
        self._executor = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                                             initializer=_warm_up)

    async def decide(self, bot: str, view: Mapping[str, Any], seed: str, budget_ms: float = 20.0) -> str:
        """The action `bot` (a registered name or `module:Class`) takes in `view`, computed in a worker."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, decide_in_worker, bot, dict(view), seed, budget_ms)

    def close(self) -> None:
        """Stop the workers (waiting for decisions under way)."""
        self._executor.shutdown(wait=True, cancel_futures=True)

    async def __aenter__(self) -> DecisionPool:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        trace: TracebackType | None) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.close)
