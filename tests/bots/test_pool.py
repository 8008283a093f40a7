"""The decision pool: bot decisions in worker processes, awaited from asyncio, equal to in-process ones."""

from __future__ import annotations

import asyncio

import pytest
from bots_helpers import frozen_copy

from server.bots import BotError, get_bot
from server.bots.pool import DecisionPool
from server.rules import Deal


def _late_play_views(count: int) -> list[dict[str, object]]:
    """Views from the last tricks of heuristic deals, where the expert searches."""
    views: list[dict[str, object]] = []
    bot = get_bot("heuristic")
    index = 0
    while len(views) < count:
        deal = Deal.from_seed("couleur", f"pool:{index}", index % 4)
        while not deal.finished:
            seat = min(deal.to_act())
            view = deal.view(seat)
            if view["phase"] == "play" and len(view["legal"]) > 1 and max(view["hand_counts"]) <= 5:
                views.append(frozen_copy(view))
            deal.apply(seat, bot.decide(view, "pool", 20.0))
        index += 1
    return views[:count]


async def test_the_pool_gives_the_decisions_the_bot_makes_in_this_process() -> None:
    views = _late_play_views(6)
    expert = get_bot("expert")
    async with DecisionPool(workers=2) as pool:
        actions = await asyncio.gather(*(pool.decide("expert", v, f"s{i}") for i, v in enumerate(views)))
        assert await pool.decide("heuristic", views[0], "h") == get_bot("heuristic").decide(views[0], "h")
    assert list(actions) == [expert.decide(view, f"s{i}") for i, view in enumerate(views)]


async def test_the_event_loop_keeps_running_while_a_worker_decides() -> None:
    views = _late_play_views(4)
    ticks = 0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0)

    async with DecisionPool(workers=1) as pool:
        await pool.decide("expert", views[0], "warm")  # the worker has started and imported the bots
        task = asyncio.create_task(ticker())
        ticks_before = ticks
        for i, view in enumerate(views):
            await pool.decide("expert", view, f"busy{i}")
        stop.set()
        await task
    assert ticks > ticks_before  # other coroutines ran while the decisions were computed elsewhere


async def test_a_bot_error_reaches_the_caller_and_the_pool_keeps_working() -> None:
    views = _late_play_views(1)
    async with DecisionPool(workers=1) as pool:
        with pytest.raises(BotError, match="unknown bot"):
            await pool.decide("nobody", views[0], "x")
        no_action = {**views[0], "legal": []}
        with pytest.raises(BotError, match="no legal action"):
            await pool.decide("expert", no_action, "x")
        assert await pool.decide("expert", views[0], "x") in views[0]["legal"]  # type: ignore[operator]


def test_a_pool_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="at least one worker"):
        DecisionPool(workers=0)
