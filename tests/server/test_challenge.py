"""The daily challenge through real websockets, on both stores (docs/rules.md §2 "Daily challenge").

Every player of a UTC day gets the same deals against the same deterministic bots, so equal play gives
equal results; the next day's deals differ; the deals come from a server secret, not from the date.
"""

from __future__ import annotations

import asyncio
import calendar
from collections.abc import Callable
from typing import Any

import pytest
from server_helpers import Connect, LiveServer, ServerProcess, random_choice

from server.challenge import DAILY_RULESET, daily_session_secret, utc_day
from server.client import ServerError, WhistClient
from server.protocol import SERVER_ADAPTER
from server.rules import Session
from server.rules.record import replay

NOON = float(calendar.timegm((2026, 11, 29, 12, 0, 0)))
DAY = 24 * 3600.0


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def set_clock(live: LiveServer, now: float) -> Clock:
    """Give the server's daily challenge a hand-moved clock."""
    clock = Clock(now)
    live.server.daily.clock = clock
    return clock


async def start_daily(client: WhistClient) -> dict[str, Any]:
    """`daily` with the client's player key; remembers room and token like `create_room`; waits for
    the first deal's state."""
    result = await client.daily()
    await client.wait_for(lambda c: c.view is not None and c.room is not None
                          and c.room["room_id"] == result["room_id"])
    return result


async def play_daily(
    client: WhistClient, played: int, choose: Callable[[dict[str, Any]], str] = random_choice
) -> dict[str, Any]:
    """Play deals (sending `ready` between them) until the game has `played` played deals; returns the
    room info after the last deal."""
    while True:
        await client.play_deal(choose, 60.0)
        room = client.room
        assert room is not None
        if room["played_deals"] >= played:
            return room
        number = room["deal_number"]
        await client.ready()
        await client.wait_for(lambda c, seen=number: c.room is not None and c.room["deal_number"] > seen
                              and c.view is not None and c.view["phase"] != "end")


def seats_actions(record: dict[str, Any]) -> list[list[str]]:
    """Each seat's actions in order. During a discard several seats act at once, so the record's
    interleaving of their discards follows timing, not play: compare seat by seat."""
    return [[action for seat, action in record["actions"] if seat == wanted] for wanted in range(4)]


async def test_daily_request_starts_a_couleur_game_with_three_heuristic_bots(
    live: LiveServer, connect: Connect
) -> None:
    set_clock(live, NOON)
    alice = await connect("Alice")
    result = await start_daily(alice)
    assert result["seat"] == 0 and result["host"] is True and result["day"] == "2026-11-29"
    room = alice.room
    assert room is not None and alice.view is not None
    SERVER_ADAPTER.validate_python(alice.state)  # the `daily` key is part of the schema
    assert room["ruleset"] == DAILY_RULESET and room["daily"] == "2026-11-29"
    assert room["listed"] is False and room["session"] == {"deals": None, "target": None}
    assert [seat["kind"] for seat in room["seats"]] == ["human", "bot", "bot", "bot"]
    assert room["bot"] == "heuristic"
    assert room["status"] == "playing" and alice.view["seat"] == 0 and len(alice.view["hand"]) == 13
    lobby = await alice.request("list_rooms")
    assert all(entry["room_id"] != alice.room_id for entry in lobby["rooms"])


async def test_ordinary_rooms_say_they_are_not_daily(connect: Connect) -> None:
    bob = await connect("Bob")
    await bob.create_room("couleur", seat=0)
    await bob.wait_for(lambda c: c.room is not None)
    assert bob.room is not None and bob.room["daily"] is None


async def test_two_players_get_identical_deals_and_identical_results_for_identical_play(
    live: LiveServer, connect: Connect
) -> None:
    set_clock(live, NOON)
    alice, bob = await connect("Alice"), await connect("Bob", binary=True)
    await start_daily(alice)
    await start_daily(bob)
    assert alice.room_id != bob.room_id
    assert alice.view is not None and bob.view is not None
    assert alice.view["hand"] == bob.view["hand"] and alice.view["dealer"] == bob.view["dealer"]
    # One after the other: the second game cannot copy the first one's timing.
    alice_room = await play_daily(alice, 3)
    bob_room = await play_daily(bob, 3)
    alice_records, bob_records = await alice.records(), await bob.records()
    assert len(alice_records) == len(bob_records) >= 3
    for alice_record, bob_record in zip(alice_records, bob_records, strict=True):
        # Same hands, turned-up card, dealer and seed deal after deal...
        assert seats_actions(alice_record) == seats_actions(bob_record)
        for key in ("hands", "seed", "dealer", "turn_up", "multiplier"):
            assert alice_record.get(key) == bob_record.get(key), key
        # ...and (same human choices) every seat, bots included, did the same: the same result.
        assert replay(alice_record).result() == replay(bob_record).result()
    assert alice_room["balances"] == bob_room["balances"]
    assert alice_room["played_deals"] == bob_room["played_deals"]


def deal_slots(records: list[dict[str, Any]]) -> dict[tuple[int, int], dict[str, Any]]:
    """Each record keyed by (deals played before it, deals thrown in since the last played one)."""
    slots: dict[tuple[int, int], dict[str, Any]] = {}
    played = redeals = 0
    for record in records:
        slots[(played, redeals)] = record
        if replay(record).thrown_in:
            redeals += 1
        else:
            played, redeals = played + 1, 0
    return slots


async def test_different_play_meets_the_same_deals(live: LiveServer, connect: Connect) -> None:
    set_clock(live, NOON)
    alice, bob = await connect("Alice"), await connect("Bob")
    await start_daily(alice)
    await start_daily(bob)

    def first_legal(view: dict[str, Any]) -> str:
        return str(view["legal"][0])

    def last_legal(view: dict[str, Any]) -> str:
        return str(view["legal"][-1])

    await play_daily(alice, 2, first_legal)
    await play_daily(bob, 2, last_legal)
    alice_records, bob_records = await alice.records(), await bob.records()
    assert alice_records[0]["dealer"] == bob_records[0]["dealer"]  # the day's cut
    # A deal's cards depend only on how many deals were played before it (and, for a redeal after an
    # all-pass, on how many were thrown in since): games that differ in thrown-in deals still meet the
    # same cards from the same dealer for their n-th played deal.
    alice_slots, bob_slots = deal_slots(alice_records), deal_slots(bob_records)
    common = alice_slots.keys() & bob_slots.keys()
    assert (0, 0) in common
    for slot in common:
        alice_record, bob_record = alice_slots[slot], bob_slots[slot]
        assert alice_record["seed"] == bob_record["seed"]
        assert alice_record["dealer"] == bob_record["dealer"]
        assert alice_record["hands"] == bob_record["hands"]
        assert alice_record.get("turn_up") == bob_record.get("turn_up")
    # Seat 0 always has a choice in the auction: the two games went different ways.
    assert [record["actions"] for record in alice_records] != [record["actions"] for record in bob_records]


async def test_the_next_day_deals_differ(live: LiveServer, connect: Connect) -> None:
    clock = set_clock(live, NOON)
    today_client, tomorrow_client, late_client = await connect("A"), await connect("B"), await connect("C")
    await start_daily(today_client)
    clock.now = NOON + 11.9 * 3600  # 23:54 UTC: still today
    await start_daily(late_client)
    clock.now = NOON + 12 * 3600  # midnight UTC: the challenge changes
    tomorrow = await start_daily(tomorrow_client)
    assert tomorrow["day"] == "2026-11-30"
    assert today_client.view is not None and tomorrow_client.view is not None and late_client.view
    assert late_client.view["hand"] == today_client.view["hand"]
    assert tomorrow_client.view["hand"] != today_client.view["hand"]
    assert tomorrow_client.room is not None and tomorrow_client.room["daily"] == "2026-11-30"


async def test_deals_come_from_the_server_secret_and_the_day(live: LiveServer, connect: Connect) -> None:
    set_clock(live, NOON)
    alice = await connect("Alice")
    await start_daily(alice)
    secret = await live.server.daily.server_secret()
    day = utc_day(NOON)
    expected = Session(DAILY_RULESET, daily_session_secret(secret, day)).deal
    assert alice.view is not None
    assert set(alice.view["hand"]) == set(expected.hands[0])
    assert alice.view["dealer"] == expected.dealer
    # Without the server secret, the date alone gives other deals.
    guessed = Session(DAILY_RULESET, daily_session_secret("", day)).deal
    assert set(guessed.hands[0]) != set(alice.view["hand"])
    assert set(Session(DAILY_RULESET, day).deal.hands[0]) != set(alice.view["hand"])


def test_the_daily_secret_depends_on_the_server_secret_and_the_day() -> None:
    one = daily_session_secret("server-one", "2026-11-29")
    assert one == daily_session_secret("server-one", "2026-11-29")
    assert one != daily_session_secret("server-two", "2026-11-29")
    assert one != daily_session_secret("server-one", "2026-11-30")
    assert utc_day(NOON + 12 * 3600 - 0.001) == "2026-11-29" and utc_day(NOON + 12 * 3600) == "2026-11-30"


async def test_a_configured_daily_secret_wins(live: LiveServer) -> None:
    from server.challenge import DailyChallenge

    daily = DailyChallenge(live.server.tables, live.server.store, "configured")
    assert await daily.server_secret() == "configured"


async def test_nobody_else_can_replace_a_daily_games_bots(connect: Connect, live: LiveServer) -> None:
    set_clock(live, NOON)
    alice, mallory = await connect("Alice"), await connect("Mallory")
    await start_daily(alice)
    assert alice.room_id is not None
    with pytest.raises(ServerError) as taken:
        await mallory.join(alice.room_id, 1)
    assert taken.value.code == "seat_taken"
    with pytest.raises(ServerError) as full:
        await mallory.join(alice.room_id)
    assert full.value.code == "room_full"
    # Leaving gives seat 0 (and only seat 0) back to anyone with the link.
    await alice.request("leave")
    joined = await mallory.join(alice.room_id)
    assert joined["seat"] == 0


# ------------------------------------------------------------------------------------------- processes


async def test_the_store_keeps_the_secret_and_daily_games_across_a_restart(
    server_process: Callable[..., ServerProcess]
) -> None:
    proc = server_process("--bot-delay", "0").start()
    alice = await WhistClient.connect(proc.url, name="Alice")
    started = await start_daily(alice)
    assert alice.view is not None
    hand, token, room_id = alice.view["hand"], alice.token, alice.room_id
    assert token is not None and room_id is not None
    proc.kill()
    await asyncio.wait_for(alice.closed.wait(), 10)
    await alice.close()

    restarted = server_process("--bot-delay", "0").start()
    try:
        bob = await WhistClient.connect(restarted.url, name="Bob")
        bob_start = await start_daily(bob)
        assert bob.view is not None
        if bob_start["day"] == started["day"]:  # (unless midnight UTC passed in between)
            assert bob.view["hand"] == hand, "the server secret is kept in the store"
        back = await WhistClient.connect(restarted.url, name="Alice")
        await back.resume(room_id, token)
        await back.wait_for(lambda c: c.view is not None)
        room = await play_daily(back, 2)
        board = await back.request("leaderboard", day=started["day"])
        lines = [(entry["name"], entry["score"], entry["deals"], entry["mine"]) for entry in board["entries"]]
        assert lines == [("Alice", room["balances"][0] + 1000, room["played_deals"], True)]
        for client in (bob, back):
            await client.close()
    finally:
        assert await asyncio.to_thread(restarted.terminate) == 0


async def test_daily_secret_flag(server_process: Callable[..., ServerProcess]) -> None:
    proc = server_process("--bot-delay", "0", "--daily-secret", "a private secret").start()
    try:
        client = await WhistClient.connect(proc.url, name="Alice")
        result = await start_daily(client)
        expected = Session(DAILY_RULESET, daily_session_secret("a private secret", result["day"])).deal
        assert client.view is not None and set(client.view["hand"]) == set(expected.hands[0])
        await client.close()
    finally:
        assert await asyncio.to_thread(proc.terminate) == 0
