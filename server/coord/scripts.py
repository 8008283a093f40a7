"""A Lua script run many times in one pipeline, by its SHA.

redis-py's `Script` objects, when called on a pipeline, make the pipeline send `SCRIPT EXISTS` for
them before every `execute` (one more round trip per pass). The coordination passes (lease renewals
and claims, presence marks) run a pipeline every second or two per process, so they call `EVALSHA`
directly instead, as the store's saves do: if Redis lost its script cache (a restart, `SCRIPT
FLUSH`), the calls answered `NOSCRIPT` ran nothing, so the script is loaded and they run again.

On a Redis Cluster the keys of one call must share a hash slot: `slot_batches` groups a pass's items by
the slot of their key (16,384 slots: most rooms have one of their own, so a call holds one or a few),
and each step of a pass (`run_spread`) sends a step's calls in one pipeline per node.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from redis.exceptions import NoScriptError

from ..store.sharded import is_cluster, lean_pipeline, slot_of

Call = tuple[Sequence[str], Sequence[Any]]  # (keys, args) of one run of the script
Item = TypeVar("Item")

# Rooms per call of a multi-key pass script (lease renewals and claims, presence marks): one command for
# many rooms, not one each (at 1,000 rooms the per-room commands were most of a process's background
# work), and few enough that one call holds Redis well under a millisecond: every save waits behind it
# (500 rooms a call held it 4-12 ms per presence call at 1,000 tables, and the saves queued meanwhile
# came back at once, a 30-50 ms burst of pushes every second). On Redis Cluster the keys of one call
# must share a hash slot: docs/scaling.md.
BATCH = 50
# A pass's calls are spread over at most this share of its interval, at most MAX_PAUSE apart.
SPREAD = 1 / 3
MAX_PAUSE = 0.01


def batches(items: Sequence[Item], size: int = BATCH) -> list[Sequence[Item]]:
    """`items` in consecutive slices of at most `size` (one script call each)."""
    return [items[start:start + size] for start in range(0, len(items), size)]


def slot_batches(items: Sequence[Item], key_of: Callable[[Item], str], clustered: bool,
                 size: int = BATCH) -> list[list[Sequence[Item]]]:
    """The steps of a pass: on one Redis, each step one call of at most `size` items (`batches`); on a
    Redis Cluster, each step at most `size` items in calls of one hash slot each (their keys')."""
    if not clustered:
        return [[batch] for batch in batches(items, size)]
    steps: list[list[Sequence[Item]]] = []
    for step in batches(items, size):
        by_slot: dict[int, list[Item]] = {}
        for item in step:
            by_slot.setdefault(slot_of(key_of(item)), []).append(item)
        steps.append(list(by_slot.values()))
    return steps


def pause_between(calls: int, interval: float) -> float:
    """Seconds between the calls of one pass of `calls` calls every `interval` seconds."""
    if calls <= 1:
        return 0.0
    return min(MAX_PAUSE, interval * SPREAD / (calls - 1))


class PipelinedScript:
    """One Lua script; `run_many(calls)` runs it once per call in one pipeline, answers in order."""

    def __init__(self, redis: Any, text: str) -> None:
        self.redis = redis
        self.text = text
        self.sha = hashlib.sha1(text.encode()).hexdigest()  # what SCRIPT LOAD answers
        self.clustered = is_cluster(redis)
        self._lean = lean_pipeline(redis, 2)

    async def run_many(self, calls: Sequence[Call]) -> list[Any]:
        """Every call's answer; the first error (other than a lost script, handled) is raised."""
        results = await self._pipeline(calls)
        missing = [index for index, result in enumerate(results) if isinstance(result, NoScriptError)]
        if missing:
            if self.clustered:  # EVAL on the calls' own nodes runs and caches it (a primary may be away)
                again = await self._lean.run([("EVAL", self.text, len(calls[index][0]), *calls[index][0],
                                               *calls[index][1]) for index in missing])
            else:
                self.sha = str(await self.redis.script_load(self.text))
                again = await self._pipeline([calls[index] for index in missing])
            for index, result in zip(missing, again, strict=True):
                results[index] = result
        for result in results:
            if isinstance(result, Exception):
                raise result
        return results

    async def run_spread(self, steps: Iterable[Sequence[Call]], pause: float) -> list[Any]:
        """`run_many`, one step (a few calls: one on one Redis) at a time, `pause` seconds apart (a
        background pass: neither Redis nor this process's loop is held for the whole pass at once).
        `steps` may be lazy: each is built just before it is sent. Every call's answer, in order."""
        results: list[Any] = []
        for number, step in enumerate(steps):
            if number and pause > 0:
                await asyncio.sleep(pause)
            results.extend(await self.run_many(step))
        return results

    async def _pipeline(self, calls: Sequence[Call]) -> list[Any]:
        return await self._lean.run([("EVALSHA", self.sha, len(keys), *keys, *args) for keys, args in calls])
