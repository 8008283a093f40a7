"""The daily leaderboard (docs/rules.md §2 "Game score"): score = total + 1000, a game enters after 2 played
deals, the deal count beside each score, equal scores ranked by who got there first, through real
websockets on both stores (the store's own leaderboard methods are in the store contract suite,
test_store.py)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from server_helpers import Connect, LiveServer
from test_challenge import NOON, play_daily, set_clock, start_daily

from server.client import ServerError

# ------------------------------------------------------------------------------------------- live


async def leaderboard(client: Any, **fields: Any) -> dict[str, Any]:
    """The `leaderboard` answer."""
    result: dict[str, Any] = await client.request("leaderboard", **fields)
    return result


async def test_a_daily_game_enters_the_leaderboard_after_two_played_deals(
    live: LiveServer, connect: Connect
) -> None:
    clock = set_clock(live, NOON)
    alice, watcher = await connect("Alice"), await connect("Watcher")
    await start_daily(alice)
    room = await play_daily(alice, 1)
    assert room["played_deals"] == 1
    assert (await leaderboard(watcher))["entries"] == []
    # Thrown-in deals do not count: play on until the second played deal ends.
    await alice.ready()
    clock.now = NOON + 60
    await alice.wait_for(lambda c: c.room is not None and c.room["deal_number"] > room["deal_number"])
    room = await play_daily(alice, 2)
    board = await leaderboard(watcher)
    assert board["day"] == "2026-11-29" and board["total"] == 1
    [entry] = board["entries"]
    assert entry == {"rank": 1, "name": "Alice", "score": room["balances"][0] + 1000, "deals": 2,
                     "reached_at": NOON + 60, "mine": False}
    assert (await leaderboard(alice))["entries"][0]["mine"] is True
    # The third deal updates the same line.
    await alice.ready()
    clock.now = NOON + 120
    await alice.wait_for(lambda c: c.room is not None and c.room["deal_number"] > room["deal_number"])
    room = await play_daily(alice, 3)
    [entry] = (await leaderboard(watcher))["entries"]
    assert entry["deals"] == 3 and entry["score"] == room["balances"][0] + 1000
    unchanged = entry["score"] == board["entries"][0]["score"]
    assert entry["reached_at"] == (NOON + 60 if unchanged else NOON + 120)
    assert (await leaderboard(watcher, day="2026-11-28"))["entries"] == []


async def test_equal_play_ties_and_the_first_to_get_there_ranks_first(
    live: LiveServer, connect: Connect
) -> None:
    clock = set_clock(live, NOON)
    first, second = await connect("First"), await connect("Second")
    await start_daily(first)
    await start_daily(second)
    # Written to the leaderboard first, but by the clock it got there second: the clock decides, not
    # the order of the writes nor the room ids.
    clock.now = NOON + 20
    await play_daily(second, 2)
    clock.now = NOON + 10
    room = await play_daily(first, 2)
    board = await leaderboard(first)
    assert [entry["name"] for entry in board["entries"]] == ["First", "Second"]
    scores = {entry["score"] for entry in board["entries"]}
    assert scores == {room["balances"][0] + 1000}
    assert [entry["rank"] for entry in board["entries"]] == [1, 2]
    assert [entry["reached_at"] for entry in board["entries"]] == [NOON + 10, NOON + 20]


async def test_leaderboard_lines_match_each_game_and_are_ranked(live: LiveServer, connect: Connect) -> None:
    clock = set_clock(live, NOON)
    players = [await connect(name) for name in ("Ann", "Ben", "Cat")]

    def first_legal(view: dict[str, Any]) -> str:
        return str(view["legal"][0])

    def last_legal(view: dict[str, Any]) -> str:
        return str(view["legal"][-1])

    finals = {}
    choices = (first_legal, last_legal, first_legal)
    for step, (player, choose) in enumerate(zip(players, choices, strict=True)):
        clock.now = NOON + step
        await start_daily(player)
        room = await play_daily(player, 2 + step, choose)
        finals[player.room_id] = room
    board = await leaderboard(players[0], limit=2)
    assert board["total"] == 3 and len(board["entries"]) == 2
    full = (await leaderboard(players[0]))["entries"]
    expected = sorted(
        (
            {"name": room["seats"][0]["name"], "score": room["balances"][0] + 1000,
             "deals": room["played_deals"]}
            for room in finals.values()
        ),
        key=lambda line: -line["score"],
    )
    shown = [{key: entry[key] for key in ("name", "score", "deals")} for entry in full]
    assert sorted(shown, key=lambda line: -line["score"]) == expected
    assert [entry["score"] for entry in full] == sorted((entry["score"] for entry in full), reverse=True)
    for before, after in itertools.pairwise(full):
        if before["score"] == after["score"]:
            assert before["reached_at"] <= after["reached_at"]
    assert full[:2] == board["entries"]


async def test_bad_leaderboard_requests_are_refused(connect: Connect) -> None:
    client = await connect("Eve")
    for fields in ({"day": "2026-13-01"}, {"day": "yesterday!"}, {"limit": 0}, {"limit": 501}):
        with pytest.raises(ServerError) as refused:
            await leaderboard(client, **fields)
        assert refused.value.code == "invalid_message"


async def test_a_failed_leaderboard_write_loses_neither_the_deal_nor_the_line(
    live: LiveServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_clock(live, NOON)
    alice = await connect("Alice")
    await start_daily(alice)
    board = live.server.store
    real_write = board.write_leaderboard_line
    failures: list[str] = []

    async def failing_write(day: str, line: Any) -> None:
        failures.append(day)
        raise ConnectionError("the leaderboard store is down")

    monkeypatch.setattr(board, "write_leaderboard_line", failing_write)
    room = await play_daily(alice, 2)  # the deal itself is stored and shown
    assert failures and room["played_deals"] == 2 and alice.view is not None
    assert alice.view["phase"] == "end"
    assert (await leaderboard(alice))["entries"] == []
    monkeypatch.setattr(board, "write_leaderboard_line", real_write)
    # The room's next change (here: the player stops) writes the line.
    await alice.request("end_game")
    [entry] = (await leaderboard(alice))["entries"]
    assert entry["score"] == room["balances"][0] + 1000 and entry["deals"] == 2
