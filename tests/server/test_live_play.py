"""Real websocket clients against a real server (both stores): full deals, bots, spectators, views."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from server_helpers import Connect, LiveServer, assert_no_hidden_cards, play_one_deal, random_choice

from server.client import ServerError, WhistClient, run_bot
from server.protocol import SERVER_ADAPTER
from server.rules import ruleset_names
from server.rules.record import replay


async def seat_four_humans(
    connect: Connect, ruleset: str = "solo-whist", **options: Any
) -> list[WhistClient]:
    """Four clients (two JSON, two msgpack) in seats 0-3 of a one-deal room, started."""
    host = await connect("North")
    await host.create_room(ruleset, seat=0, session={"deals": 1}, **options)
    assert host.room_id is not None
    others = []
    for seat, (name, binary) in enumerate([("East", True), ("South", False), ("West", True)], start=1):
        client = await connect(name, binary=binary)
        await client.join(host.room_id, seat)
        others.append(client)
    await host.start()
    return [host, *others]


@pytest.mark.parametrize("ruleset", ruleset_names())
async def test_four_humans_play_a_full_deal(connect: Connect, ruleset: str) -> None:
    clients = await seat_four_humans(connect, ruleset)
    finals = await play_one_deal(clients)
    results = [view["result"] for view in finals]
    assert all(result == results[0] for result in results)
    assert results[0]["status"] in ("complete", "thrown_in")
    records = await clients[0].records()
    assert len(records) == 1
    assert replay(records[0]).result() == results[0], "the exported record replays to the same result"
    room = clients[1].room
    assert room is not None and room["session_over"] and room["balances"] == results[0]["points"]
    for client in clients:
        for message in client.received:
            SERVER_ADAPTER.validate_python(message)  # every frame matches the documented schema


async def test_binary_clients_receive_msgpack_and_text_clients_json(connect: Connect) -> None:
    text, binary = await connect("Text"), await connect("Binary", binary=True)
    await text.request("ping")
    await binary.request("ping")
    assert all(isinstance(frame, dict) for frame in text.received + binary.received)
    # The client decodes by frame kind: a binary answer to a JSON request would have failed json.loads.
    raw = await binary.request_raw({"type": "ping", "id": "x"})
    assert raw == {"type": "ok", "id": "x", "result": {}}


async def test_a_human_plays_a_session_with_three_bots(connect: Connect) -> None:
    human = await connect("Solo")
    await human.create_room("solo-whist", seat=2, session={"deals": 2}, bot="random")
    await human.start()
    room = human.room
    assert room is not None and [seat["kind"] for seat in room["seats"]] == ["bot", "bot", "human", "bot"]
    final = await human.play_until_session_over(type("Chooser", (), {"decide": staticmethod(
        lambda view, seed, budget: random_choice(view))})(), timeout=120)
    assert final["session_over"] and final["played_deals"] == 2
    records = await human.records()
    assert len(records) >= 2
    balances = [0, 0, 0, 0]
    for record in records:
        points = replay(record).result()["points"]
        balances = [total + point for total, point in zip(balances, points, strict=True)]
    assert balances == final["balances"], "the session balances carry across deals"


async def test_a_spectator_watches_a_whole_deal_and_sees_no_hand(connect: Connect) -> None:
    clients = await seat_four_humans(connect)
    assert clients[0].room_id is not None
    spectator = await connect("Watcher")
    await spectator.watch(clients[0].room_id)
    await spectator.wait_for(lambda c: c.view is not None)
    assert spectator.room is not None and spectator.room["spectators"] == 1
    await play_one_deal(clients)
    await spectator.wait_for(lambda c: c.view is not None and c.view["phase"] == "end")
    states = [m for m in spectator.received if m["type"] == "state"]
    record = (await spectator.records())[0]
    assert len(states) > len(record["actions"]), "a state after every action"
    for state in states:
        assert state["you"] == {"seat": None, "host": False, "spectator": True}
        assert state["view"]["hand"] is None and state["view"]["legal"] == []
    with pytest.raises(ServerError) as caught:
        await spectator.act("pass")
    assert caught.value.code == "spectator_cannot_act"
    assert spectator.view is not None
    assert [sorted(hand) for hand in spectator.view["dealt"]] == [sorted(h.split()) for h in record["hands"]]
    assert assert_no_hidden_cards(spectator.received, record, None) >= len(record["actions"])


@pytest.mark.parametrize("ruleset", ruleset_names())
async def test_no_frame_to_any_connection_holds_a_hidden_card(connect: Connect, ruleset: str) -> None:
    clients = await seat_four_humans(connect, ruleset)
    assert clients[0].room_id is not None
    spectator = await connect("Watcher", binary=True)
    await spectator.watch(clients[0].room_id)
    await play_one_deal(clients)
    await spectator.wait_for(lambda c: c.view is not None and c.view["phase"] == "end")
    record = (await clients[0].records())[0]
    for seat, client in enumerate(clients):
        assert assert_no_hidden_cards(client.received, record, seat) >= len(record["actions"])
    assert assert_no_hidden_cards(spectator.received, record, None) >= len(record["actions"])


RANK_ORDER = "23456789TJQKA"


def card_rank(action: str) -> int:
    """The rank of the card of a `play`/`discard` action (for the simple strategies below)."""
    return RANK_ORDER.index(action.split()[1][0]) if " " in action else -1


async def spread_misere_attempt(connect: Connect) -> bool:
    """One deal where the first seat to speak declares a spread misère and everyone else passes.
    Returns False (nothing to check) when the declarer lost at trick 1, before the exposure."""
    clients = await seat_four_humans(connect)
    by_seat = {client.seat: client for client in clients}
    await clients[0].wait_for(lambda c: c.view is not None)
    first = clients[0].view
    assert first is not None
    declarer = first["to_act"][0]
    await by_seat[declarer].act("spread-misere")

    def declarer_choice(view: dict[str, Any]) -> str:  # duck: lowest card
        return min(view["legal"], key=card_rank)

    def defender_choice(view: dict[str, Any]) -> str:  # pass, then highest card
        return "pass" if "pass" in view["legal"] else max(view["legal"], key=card_rank)

    others = [client for seat, client in by_seat.items() if seat != declarer]
    await asyncio.gather(by_seat[declarer].play_deal(declarer_choice),
                         *(client.play_deal(defender_choice) for client in others))
    record = (await clients[0].records())[0]
    assert {c.view["result"]["contract"] for c in clients if c.view} == {"spread-misere"}
    for seat, client in by_seat.items():
        assert assert_no_hidden_cards(client.received, record, seat) >= len(record["actions"])
        states = [m["view"] for m in client.received if m["type"] == "state" and m["view"]]
        exposed_at = [i for i, view in enumerate(states) if str(declarer) in view["exposed"]]
        if not exposed_at:
            final = states[-1]
            assert final["phase"] == "end" and len(final["tricks"]) == 1, "exposed unless the deal ended"
            return False
        shown, before = states[exposed_at[0]], states[exposed_at[0] - 1]
        timing = shown["contract"]["expose"]
        assert str(declarer) not in before["exposed"]
        if timing == "before_play":
            assert shown["phase"] == "play" and shown["tricks"] == [] and before["phase"] != "play"
        else:
            assert timing == "after_trick1" and len(shown["tricks"]) == 1 and len(before["tricks"]) == 0
    return True


async def test_spread_misere_is_exposed_exactly_when_the_ruleset_says(connect: Connect) -> None:
    # A declarer who must win trick 1 loses before any exposure; another deal is then tried.
    for _ in range(5):
        if await spread_misere_attempt(connect):
            return
    pytest.fail("five deals in a row ended at trick 1: the exposure was never reached")


async def test_a_bot_takes_over_a_disconnected_player_and_hands_back(connect: Connect) -> None:
    host = await connect("Host")
    await host.create_room("solo-whist", seat=0, session={"deals": 1}, grace_seconds=0.3, bot="random")
    assert host.room_id is not None
    leaver = await connect("Leaver")
    joined = await leaver.join(host.room_id, 1)
    await host.start()
    await leaver.close()
    await host.wait_for(lambda c: c.room is not None and not c.room["seats"][1]["connected"])
    first_away = next(m["room"] for m in host.received
                      if m["type"] == "state" and not m["room"]["seats"][1]["connected"])
    assert not first_away["seats"][1]["bot_playing"], "not before the grace period"
    await host.wait_for(lambda c: c.room is not None and c.room["seats"][1]["bot_playing"], timeout=5)
    assert any(e["type"] == "bot_took_over" and e["seat"] == 1 for e in host.events)

    # The deal goes on: the host plays, the bot plays seat 1, until seat 1 has acted at least once.
    async def host_plays() -> None:
        await host.play_deal(random_choice)

    playing = asyncio.create_task(host_plays())
    await host.wait_for(lambda c: c.view is not None and (
        any(seat == 1 for seat, _ in c.view["calls"]) or c.view["phase"] == "end"), timeout=20)
    back = await connect("Leaver again")
    resumed = await back.resume(host.room_id, joined["token"])
    assert resumed["seat"] == 1
    await back.wait_for(lambda c: c.room is not None and c.room["seats"][1]["connected"])
    assert back.room is not None and not back.room["seats"][1]["bot_playing"]
    assert back.view is not None and back.view["seat"] == 1 and back.view["hand"] is not None
    await asyncio.gather(playing, back.play_deal(random_choice))
    assert back.view is not None and back.view["phase"] == "end"


async def test_two_clients_race_for_the_last_seat(connect: Connect) -> None:
    host = await connect("Host")
    await host.create_room("solo-whist", seat=0)
    assert host.room_id is not None
    for seat in (1, 2):
        await (await connect(f"P{seat}")).join(host.room_id, seat)
    racers = [await connect("Racer A"), await connect("Racer B", binary=True)]
    answers = await asyncio.gather(
        *(racer.request_raw({"type": "join", "id": 1, "room_id": host.room_id, "seat": 3})
          for racer in racers)
    )
    assert sorted(answer["type"] for answer in answers) == ["error", "ok"]
    (lost,) = [answer for answer in answers if answer["type"] == "error"]
    assert lost["code"] == "seat_taken" and "seat 3" in lost["message"]
    # Once the room is full, first-free-seat joins hear so.
    late = [await connect("Late A"), await connect("Late B")]
    answers = await asyncio.gather(
        *(client.request_raw({"type": "join", "id": 2, "room_id": host.room_id}) for client in late)
    )
    assert {answer.get("code") for answer in answers} == {"room_full"}


async def test_race_for_the_first_free_seat(connect: Connect) -> None:
    host = await connect("Host")
    await host.create_room("solo-whist", seat=0)
    assert host.room_id is not None
    for seat in (1, 2):
        await (await connect(f"P{seat}")).join(host.room_id, seat)
    racers = [await connect(f"R{i}") for i in range(3)]
    answers = await asyncio.gather(
        *(client.request_raw({"type": "join", "id": 1, "room_id": host.room_id}) for client in racers)
    )
    assert sorted(a["type"] for a in answers) == ["error", "error", "ok"]
    assert {a["code"] for a in answers if a["type"] == "error"} == {"room_full"}
    await host.wait_for(lambda c: c.room is not None and c.room["seats"][3]["kind"] == "human")


async def test_tokens_and_the_secret_are_never_shown_to_others(connect: Connect, live: LiveServer) -> None:
    clients = await seat_four_humans(connect)
    assert clients[0].room_id is not None
    session = live.server.tables.rooms[clients[0].room_id].session
    assert session is not None
    await play_one_deal(clients)
    tokens = {client.token for client in clients}
    assert None not in tokens and len(tokens) == 4
    for client in clients:
        others = tokens - {client.token}
        text = repr(client.received)
        assert not any(token in text for token in others if token)
        assert session.secret not in text, "the session secret would reveal every later deal"
    stored = await live.server.store.load(clients[0].room_id)
    assert stored is not None and not any(token in repr(stored.state) for token in tokens if token), (
        "the store keeps token hashes only")


async def test_host_controls_bots_and_start(connect: Connect) -> None:
    host = await connect("Host")
    await host.create_room("solo-whist", seat=0, session={"deals": 1})
    assert host.room_id is not None
    guest = await connect("Guest")
    await guest.join(host.room_id)
    assert guest.seat == 1
    for request, fields in (("add_bot", {"seat": 2}), ("start", {}), ("end_game", {})):
        with pytest.raises(ServerError) as caught:
            await guest.request(request, **fields)
        assert caught.value.code in ("not_host", "not_started")
    assert (await host.request("add_bot", seat=2, bot="random"))["seat"] == 2
    with pytest.raises(ServerError) as caught:
        await host.request("add_bot", seat=1)
    assert caught.value.code == "seat_taken"
    assert (await host.request("remove_bot", seat=2))["seat"] == 2
    await host.request("add_bot")
    await host.wait_for(lambda c: c.room is not None and c.room["seats"][2]["kind"] == "bot")
    await host.start()
    with pytest.raises(ServerError) as caught:
        await host.start()
    assert caught.value.code == "already_started"
    room = host.room
    assert room is not None and [s["kind"] for s in room["seats"]] == ["human", "human", "bot", "bot"]
    ended = await host.request("end_game")
    assert ended["balances"] == [0, 0, 0, 0]
    await guest.wait_for(lambda c: c.room is not None and c.room["status"] == "over")


async def test_next_deal_starts_when_every_human_is_ready(connect: Connect) -> None:
    host = await connect("Host")
    await host.create_room("solo-whist", seat=0, session={"deals": 3}, bot="random")
    assert host.room_id is not None
    guest = await connect("Guest")
    await guest.join(host.room_id, 2)
    await host.start()
    await play_one_deal([host, guest])
    assert host.room is not None and host.room["status"] == "between_deals"
    waiting = await host.ready()
    assert waiting == {"ready": [0], "waiting_for": [2]}
    await asyncio.sleep(0.1)
    assert host.room is not None and host.room["deal_number"] == 0, "no new deal until everyone is ready"
    with pytest.raises(ServerError) as caught:
        await host.act("pass")
    assert caught.value.code == "illegal_action"
    await guest.ready()
    await host.wait_for(lambda c: c.room is not None and c.room["deal_number"] == 1 and c.view is not None
                        and c.view["phase"] != "end")


async def test_leave_gives_the_seat_to_a_bot_after_the_start(connect: Connect) -> None:
    host = await connect("Host")
    await host.create_room("solo-whist", seat=0, session={"deals": 1}, bot="random")
    assert host.room_id is not None
    guest = await connect("Guest")
    token = (await guest.join(host.room_id, 3))["token"]
    await host.start()
    await guest.request("leave")
    await host.wait_for(lambda c: c.room is not None and c.room["seats"][3]["kind"] == "bot")
    with pytest.raises(ServerError) as caught:
        await guest.resume(host.room_id, token)
    assert caught.value.code == "bad_token"
    again = await guest.join(host.room_id, 3)  # a seat no human holds may be joined after the start
    assert again["seat"] == 3 and again["token"] != token


async def test_the_lobby_lists_open_listed_rooms_and_pushes_changes(connect: Connect) -> None:
    watcher = await connect("Lobby")
    initial = await watcher.request("list_rooms", subscribe=True)
    assert initial["rooms"] == []
    host = await connect("Host")
    listed = await host.create_room("solo-whist", seat=0, name="Open table")
    hidden = await (await connect("Other")).create_room("solo-whist", seat=0, listed=False)
    await watcher.wait_for(lambda c: bool(c.lobby))
    rooms = (await watcher.request("list_rooms"))["rooms"]
    assert [room["room_id"] for room in rooms] == [listed["room_id"]]
    assert rooms[0]["name"] == "Open table" and rooms[0]["free_seats"] == 3
    assert hidden["room_id"] not in repr(watcher.received)


async def test_a_client_may_turn_off_event_pushes(connect: Connect, live: LiveServer) -> None:
    quiet = await WhistClient.connect(live.url, name="Quiet", events=False)
    try:
        await quiet.create_room("solo-whist", seat=0, session={"deals": 1}, bot="random")
        await quiet.start()
        await quiet.play_deal(random_choice)
        kinds = {message["type"] for message in quiet.received}
        assert "events" not in kinds and "state" in kinds
    finally:
        await quiet.close()


async def test_leaving_before_the_start_empties_the_seat_and_passes_on_the_host(connect: Connect) -> None:
    host = await connect("Host")
    await host.create_room("solo-whist", seat=1)
    assert host.room_id is not None
    guest = await connect("Guest")
    await guest.join(host.room_id, 3)
    await host.request("leave")
    await guest.wait_for(lambda c: c.room is not None and c.room["seats"][1]["kind"] == "empty")
    assert guest.room is not None and guest.room["host_seat"] == 3
    assert guest.state is not None and guest.state["you"]["host"] is True
    await guest.request("add_bot", seat=0, bot="random")


async def test_a_bot_connects_from_outside_with_the_python_client(live: LiveServer) -> None:
    room = await run_bot(live.url, None, 2, "random", "Remote", "solo-whist", 1)
    assert room["session_over"]
    assert room["seats"][2]["kind"] == "human" and room["seats"][2]["name"] == "Remote"
