"""The daily challenge counts once per player key, and "how others played this deal",
through real websockets on both stores (docs/protocol.md, "Daily challenge")."""

from __future__ import annotations

from typing import Any

import pytest
from server_helpers import Connect, LiveServer
from test_challenge import NOON, play_daily, set_clock, start_daily
from test_leaderboard import leaderboard

from server.client import ServerError, WhistClient

KEY = "alice-browser-key-0123456789"


async def play_two_deals(client: WhistClient) -> dict[str, Any]:
    """Start today's game with the client's key and play until two deals are played."""
    await start_daily(client)
    return await play_daily(client, 2)


async def test_a_key_counts_its_first_game_of_the_day_only(live: LiveServer, connect: Connect) -> None:
    set_clock(live, NOON)
    watcher = await connect("Watcher")
    first = await connect("Alice", player_key=KEY)
    answer = await start_daily(first)
    assert answer["practice"] is False
    assert first.room is not None and first.room["practice"] is False
    first_room = await play_daily(first, 2)
    board = await leaderboard(watcher)
    assert [(line["name"], line["score"]) for line in board["entries"]] == [
        ("Alice", first_room["balances"][0] + 1000)]

    # The same browser (same key) replays the day, on a new connection: practice, shown as such.
    again = await connect("Alice", player_key=KEY)
    answer = await start_daily(again)
    assert answer["practice"] is True
    assert again.room is not None and again.room["practice"] is True
    await play_daily(again, 3)
    board = await leaderboard(watcher)
    assert board["total"] == 1, "the practice game never enters the leaderboard"
    assert [(line["name"], line["score"], line["deals"]) for line in board["entries"]] == [
        ("Alice", first_room["balances"][0] + 1000, 2)], "the counted game's line is unchanged"

    # Another browser (another key) counts.
    other = await connect("Bob", player_key="bob-browser-key-abcdefghijkl")
    assert (await start_daily(other))["practice"] is False
    await play_daily(other, 2)
    assert (await leaderboard(watcher))["total"] == 2


async def test_a_game_without_a_key_is_practice(live: LiveServer, connect: Connect) -> None:
    set_clock(live, NOON)
    keyless = await connect("Nokey")
    answer = await keyless.request("daily")
    assert answer["practice"] is True
    keyless.room_id, keyless.token, keyless.seat = answer["room_id"], answer["token"], answer["seat"]
    await keyless.wait_for(lambda c: c.room is not None and c.room["practice"] is True)


@pytest.mark.parametrize("key", ["short", "no spaces allowed here!", "x" * 129])
async def test_a_malformed_key_is_refused_and_creates_nothing(
    live: LiveServer, connect: Connect, key: str
) -> None:
    client = await connect("Bad")
    with pytest.raises(ServerError) as refused:
        await client.request("daily", player_key=key)
    assert refused.value.code == "invalid_message"
    assert live.server.tables.rooms == {}
    assert await client.request("ping") == {}


async def test_the_next_day_the_same_key_counts_again(live: LiveServer, connect: Connect) -> None:
    clock = set_clock(live, NOON)
    today = await connect("Alice", player_key=KEY)
    assert (await start_daily(today))["practice"] is False
    clock.now = NOON + 86400
    tomorrow = await connect("Alice", player_key=KEY)
    assert (await start_daily(tomorrow))["practice"] is False


# ------------------------------------------------------------------------------- deal results


async def test_deal_results_show_every_counted_game_and_the_askers_place(
    live: LiveServer, connect: Connect
) -> None:
    set_clock(live, NOON)
    alice, bob = await connect("Alice"), await connect("Bob")
    alice_room = await play_two_deals(alice)
    bob_room = await play_two_deals(bob)
    # Alice is still at her finished second deal; deal 0 was played by both games.
    answer = await alice.daily_deal_results(0)
    assert answer["deal"] == 0 and answer["practice"] is False and answer["games"] == 2
    names = sorted(line["name"] for line in answer["results"])
    assert names == ["Alice", "Bob"]
    mine = [line for line in answer["results"] if line["mine"]]
    assert len(mine) == 1 and mine[0]["name"] == "Alice" and mine[0]["place"] == answer["place"]
    session = live.server.tables.rooms[str(alice.room_id)].session
    assert session is not None
    result = session.history[0]["result"]
    assert mine[0]["contract"] == result["contract"] and mine[0]["points"] == result["points"][0]
    points = [line["points"] for line in answer["results"]]
    assert points == sorted(points, reverse=True), "best first"
    assert answer["place"] == 1 + sum(p > mine[0]["points"] for p in points)
    assert alice_room["played_deals"] >= 2 and bob_room["played_deals"] >= 2


async def test_deal_results_never_show_a_deal_the_asker_has_not_finished(
    live: LiveServer, connect: Connect
) -> None:
    set_clock(live, NOON)
    alice, late = await connect("Alice"), await connect("Late")
    await play_two_deals(alice)
    await start_daily(late)  # the first deal is being played: not finished
    with pytest.raises(ServerError) as refused:
        await late.daily_deal_results(0)
    assert refused.value.code == "deal_not_finished"
    with pytest.raises(ServerError) as refused:
        await alice.daily_deal_results(50)
    assert refused.value.code == "deal_not_finished"
    outsider = await connect("Outsider")
    with pytest.raises(ServerError) as refused:
        await outsider.daily_deal_results(0)
    assert refused.value.code == "not_daily"
    # A spectator of Alice's game holds no seat in it: nothing either.
    await outsider.watch(str(alice.room_id))
    with pytest.raises(ServerError) as refused:
        await outsider.daily_deal_results(0)
    assert refused.value.code == "deal_not_finished"
    assert await outsider.request("ping") == {}


async def test_a_practice_game_sees_the_results_but_adds_none(live: LiveServer, connect: Connect) -> None:
    set_clock(live, NOON)
    first = await connect("Alice", player_key=KEY)
    await play_two_deals(first)
    again = await connect("Alice", player_key=KEY)
    await start_daily(again)
    await play_daily(again, 1)
    answer = await again.daily_deal_results(0)
    assert answer["practice"] is True and answer["games"] == 1
    mine = [line for line in answer["results"] if line["mine"]]
    assert len(mine) == 1 and mine[0]["practice"] is True
    assert [line["mine"] for line in answer["results"]].count(False) == 1, "the counted game only"
    counted = await first.daily_deal_results(0)
    assert counted["games"] == 1 and len(counted["results"]) == 1, "the practice game is not stored"
