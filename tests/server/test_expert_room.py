"""The expert bot in the product: a room's bots may be `expert`; the live bot driver asks
it through the process pool (`server/bots/pool.py`), deterministically, and meters its decisions."""

from __future__ import annotations

import pytest
from server_helpers import Connect, LiveServer
from test_metrics import scrape, value

from server.bots import get_bot
from server.client import ServerError
from server.live import BotDriver, BotScheduler
from server.rules import Session
from server.table import play


async def test_a_whole_deal_with_three_expert_bots_through_the_websocket(
    live: LiveServer, connect: Connect
) -> None:
    ann = await connect("Ann")
    await ann.create_room("couleur", seat=0, bot="expert", listed=False, session={"deals": 1})
    await ann.start()
    await ann.wait_for(lambda c: c.room is not None and c.room["status"] != "waiting")
    assert ann.room is not None and ann.room["bot"] == "expert"
    assert [seat["kind"] for seat in ann.room["seats"]] == ["human", "bot", "bot", "bot"]
    room = await ann.play_until_session_over(get_bot("random"), timeout=900)
    assert room["session_over"] and room["played_deals"] == 1
    view = ann.view
    assert view is not None and view["phase"] == "end" and view["result"]["status"] == "complete"
    assert view["result"]["tricks_played"] >= 1
    assert live.server.tables.bots.pool is not None, "the expert decided in the process pool"
    samples = await scrape(live)
    records = (await ann.request("get_records"))["records"]
    bot_moves = sum(1 for record in records for seat, _ in record["actions"] if seat != 0)
    assert bot_moves >= 3, "the bots called and played"
    assert value(samples, "whist_bot_decision_seconds_count", bot="expert") >= bot_moves
    assert value(samples, "whist_actions_total", by="bot") >= bot_moves


async def test_add_bot_takes_an_expert_and_refuses_an_unknown_bot(connect: Connect) -> None:
    host = await connect("Host")
    await host.create_room("solo-whist", seat=0, listed=False)
    answer = await host.request("add_bot", seat=1, bot="expert")
    assert answer["seat"] == 1
    await host.wait_for(lambda c: c.room is not None and c.room["seats"][1]["kind"] == "bot")
    with pytest.raises(ServerError) as refused:
        await host.request("add_bot", seat=2, bot="oracle")
    assert refused.value.code == "unknown_bot"
    assert host.room is not None and host.room["seats"][2]["kind"] == "empty"


def late_play_views(ruleset: str, secret: str, tricks_left: int) -> list[tuple[dict[str, object], str]]:
    """(view, seed) of the seat to act once a deal of `ruleset` has `tricks_left` tricks to play (the
    part where the expert searches), reached by the heuristic's play (random play mostly passes)."""
    heuristic = get_bot("heuristic")
    session = Session(ruleset, secret)
    found: list[tuple[dict[str, object], str]] = []
    while not session.deal.finished and len(found) < 2:
        deal = session.deal
        seat = min(deal.to_act())
        view = deal.view(seat)
        if view["phase"] == "play" and 13 - len(view["tricks"]) <= tricks_left:
            found.append((view, play.decision_seed(deal, "bot", seat)))
        seed = f"{secret}:{len(view['calls'])}:{len(view['tricks'])}"
        session.apply(seat, heuristic.decide(view, seed, 20.0))
    return found


@pytest.mark.parametrize("ruleset", ["couleur", "solo-whist"])
async def test_a_pooled_expert_decision_is_the_in_process_one(ruleset: str) -> None:
    driver = BotDriver(BotScheduler(), 0.0)
    expert = get_bot("expert")
    try:
        views = [found for secret in ("one", "two", "three") for found in late_play_views(ruleset, secret, 5)]
        assert views, "seeded deals reach their last tricks"
        for view, seed in views:
            pooled = await driver.decide("expert", view, seed)
            assert pooled == await driver.decide("expert", view, seed), "same view and seed, same action"
            in_process = expert.decide(view, seed, play.BOT_BUDGET_MS)
            assert pooled == in_process, "the worker decides as this process"
    finally:
        await driver.stop()
    assert driver.pool is None
