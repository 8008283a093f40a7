"""The coordination passes' scripts (server/coord/scripts.py): a background pass over many rooms is
sent in small calls spread over part of its interval, so that it holds neither Redis (where every save
waits behind it) nor the event loop for the whole pass at once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from redis.asyncio import Redis

from server.coord import redis_coordination
from server.coord.scripts import BATCH, MAX_PAUSE, SPREAD, Call, PipelinedScript, pause_between

_COUNT_KEYS = "return #KEYS"


def test_a_pass_of_one_call_does_not_wait() -> None:
    assert pause_between(0, 1.0) == 0.0
    assert pause_between(1, 1.0) == 0.0


def test_a_pass_is_spread_over_a_share_of_its_interval_at_most() -> None:
    assert pause_between(3, 1.0) == MAX_PAUSE  # few calls: at most MAX_PAUSE apart
    many = 1000
    pause = pause_between(many, 2.0)
    assert pause < MAX_PAUSE
    assert (many - 1) * pause == pytest.approx(2.0 * SPREAD)


async def test_a_spread_pass_sends_one_call_at_a_time_and_lets_other_work_run_between(
        redis_url: str) -> None:
    redis = Redis.from_url(redis_url)
    script = PipelinedScript(redis, _COUNT_KEYS)
    await redis.script_load(_COUNT_KEYS)  # no NOSCRIPT retry among the calls counted
    sent: list[int] = []
    ran_between: list[int] = []
    ticks = 0

    async def pipeline(calls: Sequence[Call]) -> list[Any]:
        sent.append(len(calls))
        ran_between.append(ticks)
        return await PipelinedScript._pipeline(script, calls)

    async def other_work() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    script._pipeline = pipeline  # type: ignore[method-assign]
    worker = asyncio.get_running_loop().create_task(other_work())
    try:
        calls: list[Call] = [([f"k{index}"] * (index + 1), []) for index in range(3)]
        assert await script.run_spread(iter([[call] for call in calls]), 0.001) == [1, 2, 3]  # in order
    finally:
        worker.cancel()
        await redis.aclose()
    assert sent == [1, 1, 1]
    assert ran_between[0] < ran_between[1] < ran_between[2]


async def test_the_lease_and_presence_passes_go_out_in_calls_of_one_batch(
        redis_url: str, redis_cleanup: str) -> None:
    coord = redis_coordination(redis_url, "A", prefix=redis_cleanup)
    rooms = [f"r{index}" for index in range(2 * BATCH + 3)]
    sizes: list[list[int]] = []  # per round trip: the rooms of each call in it
    for script in (coord.leases._claim_many, coord.leases._renew_many,  # type: ignore[attr-defined]
                   coord.presence._mark_many_script):  # type: ignore[attr-defined]
        original = script.run_many

        async def run_many(calls: Sequence[Call], original: Any = original) -> list[Any]:
            sizes.append([len(keys) for keys, _ in calls])
            return list(await original(calls))

        script.run_many = run_many
    try:
        for room in rooms:
            coord.leases.want(room)
            coord.presence.local[room, 0] += 1
        await coord.leases.tick()  # the claims
        await coord.leases.tick()  # the renewals
        await coord.presence.tick()
        assert coord.leases.held == frozenset(rooms)
        assert sizes == [[BATCH], [BATCH], [3]] * 3
        assert await coord.presence.seats(rooms[-1]) == {0: frozenset({"A"})}
    finally:
        await coord.close()
