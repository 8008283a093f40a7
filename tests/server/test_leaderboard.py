"""The daily leaderboard (RULES.md §2 "Game score"): score = total + 1000, a game enters after 2 played
deals, the deal count beside each score, equal scores ranked by who got there first. On both stores:
the leaderboard objects directly, then through real websockets."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from typing import Any

import pytest
from server_helpers import Connect, LiveServer
from test_challenge import NOON, play_daily, set_clock, start_daily

from server.client import ServerError
from server.leaderboard import Leaderboard, MemoryLeaderboard, RedisLeaderboard, leaderboard_for
from server.store import MemoryStore
from server.store.redis import RedisStore

DAY = "2026-11-29"


@pytest.fixture(params=["memory", "redis"])
async def board(
    request: pytest.FixtureRequest, redis_url: str, redis_cleanup: str
) -> AsyncIterator[Leaderboard]:
    """A leaderboard of each kind (Redis: under the test's own prefix)."""
    if request.param == "memory":
        yield leaderboard_for(MemoryStore())
        return
    store = RedisStore(redis_url, prefix=redis_cleanup)
    yield leaderboard_for(store)
    await store.close()


async def test_leaderboard_for_picks_the_stores_kind(board: Leaderboard, redis_url: str,
                                                     redis_cleanup: str) -> None:
    assert isinstance(board, MemoryLeaderboard | RedisLeaderboard)
    store = RedisStore(redis_url, prefix=redis_cleanup)
    try:
        assert isinstance(leaderboard_for(store), RedisLeaderboard)
    finally:
        await store.close()
    assert isinstance(leaderboard_for(MemoryStore()), MemoryLeaderboard)


async def test_game_score_ranks_highest_first_and_equal_scores_by_who_got_there_first(
    board: Leaderboard,
) -> None:
    await board.record(DAY, "late", "Late", 1020, 4, NOON + 300)
    await board.record(DAY, "best", "Best", 1055, 9, NOON + 400)
    await board.record(DAY, "early", "Early", 1020, 2, NOON + 100)
    await board.record(DAY, "low", "Low", 970, 3, NOON + 50)
    lines, total = await board.top(DAY, 10)
    assert total == 4
    assert [line.name for line in lines] == ["Best", "Early", "Late", "Low"]
    assert [(line.score, line.deals) for line in lines] == [(1055, 9), (1020, 2), (1020, 4), (970, 3)]
    top_two, total = await board.top(DAY, 2)
    assert [line.name for line in top_two] == ["Best", "Early"] and total == 4


async def test_a_game_keeps_the_first_time_it_reached_a_score(board: Leaderboard) -> None:
    await board.record(DAY, "steady", "Steady", 1010, 2, NOON + 10)
    await board.record(DAY, "rival", "Rival", 1010, 2, NOON + 20)
    # Steady's third deal scores nothing: it still got to 1010 first.
    line = await board.record(DAY, "steady", "Steady", 1010, 3, NOON + 30)
    assert line.reached_at == NOON + 10 and line.deals == 3
    lines, _ = await board.top(DAY, 10)
    assert [line.room_id for line in lines] == ["steady", "rival"]
    # Down and back up again: the score's first time still counts.
    await board.record(DAY, "steady", "Steady", 1004, 4, NOON + 40)
    lines, _ = await board.top(DAY, 10)
    assert [line.room_id for line in lines] == ["rival", "steady"]
    back = await board.record(DAY, "steady", "Steady", 1010, 5, NOON + 50)
    assert back.reached_at == NOON + 10
    lines, total = await board.top(DAY, 10)
    assert [line.room_id for line in lines] == ["steady", "rival"] and total == 2
    assert lines[0].deals == 5


async def test_one_line_per_game_and_one_board_per_day(board: Leaderboard) -> None:
    await board.record(DAY, "game", "Alice", 1000, 2, NOON)
    await board.record(DAY, "game", "Alice", 1012, 3, NOON + 1)
    await board.record("2026-11-30", "other", "Bob", 990, 2, NOON + 86400)
    lines, total = await board.top(DAY, 10)
    assert total == 1 and lines[0].score == 1012 and lines[0].deals == 3
    tomorrow, total = await board.top("2026-11-30", 10)
    assert total == 1 and tomorrow[0].name == "Bob"
    assert await board.top("2026-12-01", 10) == ([], 0)


async def test_the_server_secret_is_created_once(
    board: Leaderboard, redis_url: str, redis_cleanup: str
) -> None:
    secret = await board.server_secret()
    assert len(secret) == 64 and await board.server_secret() == secret
    if isinstance(board, RedisLeaderboard):
        # Another process on the same Redis gets the same secret.
        store = RedisStore(redis_url, prefix=redis_cleanup)
        try:
            assert await leaderboard_for(store).server_secret() == secret
        finally:
            await store.close()


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
    board = live.server.daily.leaderboard
    real_write = board.write
    failures: list[str] = []

    async def failing_write(day: str, line: Any) -> None:
        failures.append(day)
        raise ConnectionError("the leaderboard store is down")

    monkeypatch.setattr(board, "write", failing_write)
    room = await play_daily(alice, 2)  # the deal itself is stored and shown
    assert failures and room["played_deals"] == 2 and alice.view is not None
    assert alice.view["phase"] == "end"
    assert (await leaderboard(alice))["entries"] == []
    monkeypatch.setattr(board, "write", real_write)
    # The room's next change (here: the player stops) writes the line.
    await alice.request("end_game")
    [entry] = (await leaderboard(alice))["entries"]
    assert entry["score"] == room["balances"][0] + 1000 and entry["deals"] == 2
