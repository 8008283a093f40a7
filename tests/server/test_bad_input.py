"""Every kind of bad input gets an error naming the problem, changes nothing and keeps the connection
open; persistent abuse is closed with a proper close code. Against both stores."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import msgpack  # type: ignore[import-untyped]
from server_helpers import Connect, LiveServer
from websockets.asyncio.client import connect as connect_raw
from websockets.exceptions import ConnectionClosed

from server.client import WhistClient
from server.settings import Limits

MAX_STRIKES = Limits().max_strikes


async def started_table(connect: Connect) -> list[WhistClient]:
    """Four humans seated, the deal dealt, nobody has acted."""
    host = await connect("North")
    await host.create_room("solo-whist", seat=0, session={"deals": 1})
    assert host.room_id is not None
    clients = [host]
    for seat in (1, 2, 3):
        client = await connect(f"P{seat}", binary=seat == 2)
        await client.join(host.room_id, seat)
        clients.append(client)
    await host.start()
    for client in clients:
        await client.wait_for(lambda c: c.view is not None)
    return clients


async def stored_state(live: LiveServer, room_id: str) -> tuple[int, Any]:
    stored = await live.server.store.load(room_id)
    assert stored is not None
    return stored.version, stored.state


async def expect_error(client: WhistClient, frame: str | bytes, code: str, words: str) -> dict[str, Any]:
    await client.send_raw(frame)
    answer = await asyncio.wait_for(client.unmatched.get(), 10)
    assert answer["type"] == "error" and answer["code"] == code, answer
    assert words.lower() in answer["message"].lower(), answer["message"]
    return answer


async def test_every_bad_input_is_answered_and_changes_nothing(connect: Connect, live: LiveServer) -> None:
    clients = await started_table(connect)
    host = clients[0]
    assert host.room_id is not None and host.view is not None
    room_id = host.room_id
    before = await stored_state(live, host.room_id)
    by_seat = {client.seat: client for client in clients}
    to_act = host.view["to_act"][0]
    mover = by_seat[to_act]
    waiter = by_seat[(to_act + 1) % 4]
    spectator = await connect("Watcher")
    await spectator.watch(host.room_id)

    await expect_error(mover, "{oops", "bad_json", "not valid JSON")
    await expect_error(mover, "[1]", "bad_json", "object")
    await expect_error(mover, b"\xc1\x00\xff", "bad_msgpack", "msgpack")
    await expect_error(mover, json.dumps({"type": "fly", "id": 1}), "unknown_type", "'fly'")
    await expect_error(mover, json.dumps({"id": 1}), "unknown_type", "missing")
    cases: list[tuple[WhistClient, dict[str, Any], str, str]] = [
        (mover, {"type": "act", "id": 2}, "invalid_message", "action"),
        (mover, {"type": "act", "id": 3, "action": ["pass"]}, "invalid_message", "action"),
        (mover, {"type": "join", "id": 4, "room_id": room_id, "seat": "north"}, "invalid_message", "seat"),
        (waiter, {"type": "act", "id": 5, "action": "pass"}, "not_your_turn", f"seat {to_act}"),
        (mover, {"type": "act", "id": 6, "action": "dance"}, "malformed_action", "dance"),
        (mover, {"type": "act", "id": 7, "action": "play AS"}, "illegal_action", "auction"),
        (mover, {"type": "act", "id": 8, "action": "pass", "seat": (to_act + 2) % 4}, "not_your_seat",
         "their own seat"),
        (spectator, {"type": "act", "id": 9, "action": "pass"}, "spectator_cannot_act", "spectator"),
        (mover, {"type": "join", "id": 10, "room_id": "nope"}, "no_such_room", "nope"),
        (mover, {"type": "resume", "id": 11, "room_id": room_id, "token": "guess"}, "bad_token", "token"),
        (by_seat[2] if to_act != 2 else by_seat[3], {"type": "start", "id": 12}, "not_host", "host"),
        (mover, {"type": "ready", "id": 13}, "deal_in_progress", "still being played"),
    ]
    for client, message, code, words in cases:
        answer = await client.request_raw(message)
        assert answer["type"] == "error" and answer["id"] == message["id"], answer
        assert answer["code"] == code and words.lower() in answer["message"].lower(), answer
    # Frames over 64 KiB, in both encodings.
    await expect_error(mover, json.dumps({"type": "ping", "id": 1, "pad": "x" * 70000}), "frame_too_large",
                       "64 KiB")
    await expect_error(mover, msgpack.packb({"type": "ping", "id": 1, "pad": "x" * 70000}), "frame_too_large",
                       "64 KiB")
    assert await stored_state(live, host.room_id) == before, "no bad input changed the room"
    for client in (*clients, spectator):
        assert (await client.request("ping")) == {}, "the connection stays open"
    # The table still plays on.
    assert (await mover.act("pass"))["seat"] == to_act


async def test_an_unknown_ruleset_house_rule_or_bot_is_refused(connect: Connect) -> None:
    client = await connect("Host")
    for options, code, words in (
        ({"ruleset": "poker"}, "unknown_ruleset", "poker"),
        ({"ruleset": "solo-whist", "house_rules": {"jokers": True}}, "bad_house_rules", "jokers"),
        ({"ruleset": "solo-whist", "bot": "oracle"}, "unknown_bot", "oracle"),
    ):
        answer = await client.request_raw({"type": "create_room", "id": 1, **options})
        assert answer["code"] == code and words in answer["message"]
    assert (await client.request("list_rooms"))["rooms"] == []


async def test_flooding_is_rate_limited_then_closed(connect: Connect, live: LiveServer) -> None:
    live.server.limits = Limits(20.0, 40.0)
    client = await connect(None)
    started = time.monotonic()
    for number in range(60):
        await client.send_raw(json.dumps({"type": "ping", "id": number}))
    await client.wait_for(lambda c: sum(m["type"] in ("ok", "error") for m in c.received) >= 60)
    elapsed = time.monotonic() - started
    answers = [m for m in client.received if m["type"] in ("ok", "error")]
    limited = [m for m in answers if m["type"] == "error"]
    assert limited and all(m["code"] == "rate_limited" and "per second" in m["message"] for m in limited)
    served = sum(m["type"] == "ok" for m in answers)
    assert 40 <= served <= 40 + 20 * elapsed + 1, "a burst of 40, then 20 per second"
    await asyncio.sleep(0.2)
    assert await client.request("ping") == {}, "still open after a short burst"
    # Keep flooding: the errors pile up and the server closes the connection with 1008.
    for number in range(2000):
        if client.closed.is_set():
            break
        try:
            await client.send_raw(json.dumps({"type": "ping", "id": number}))
        except ConnectionClosed:
            break
    await asyncio.wait_for(client.closed.wait(), 10)
    assert client.websocket.close_code == 1008


async def test_persistent_garbage_is_closed_with_1008(connect: Connect) -> None:
    client = await connect(None)
    for _ in range(MAX_STRIKES - 1):
        await client.send_raw("not json")
    assert await client.request("ping") == {}, "still open below the limit"
    await client.send_raw(b"\xc1")
    await asyncio.wait_for(client.closed.wait(), 10)
    assert client.websocket.close_code == 1008
    errors = [m for m in client.received if m["type"] == "error"]
    assert len(errors) == MAX_STRIKES and {m["code"] for m in errors} == {"bad_json", "bad_msgpack"}


async def test_a_huge_frame_closes_with_1009(connect: Connect) -> None:
    client = await connect(None)
    await client.send_raw("x" * (2 * 1024 * 1024))
    await asyncio.wait_for(client.closed.wait(), 10)
    assert client.websocket.close_code == 1009


async def test_answers_and_pushes_follow_the_client_encoding(live: LiveServer) -> None:
    async with connect_raw(live.url) as websocket:
        await websocket.send(json.dumps({"type": "hello", "id": 1, "name": "Enc"}))
        assert json.loads(await websocket.recv())["type"] == "ok"
        await websocket.send(msgpack.packb({"type": "create_room", "id": 2, "ruleset": "solo-whist"}))
        frames = [await websocket.recv() for _ in range(3)]  # the state and chat pushes, and the answer
        assert all(isinstance(frame, bytes) for frame in frames)
        assert {msgpack.unpackb(frame)["type"] for frame in frames} == {"state", "chat", "ok"}
        await websocket.send(json.dumps({"type": "ping", "id": 3}))
        assert json.loads(await websocket.recv()) == {"type": "ok", "id": 3, "result": {}}


async def test_illegal_cards_are_refused_with_the_rule_and_change_nothing(
    connect: Connect, live: LiveServer
) -> None:
    clients = await started_table(connect)
    by_seat = {client.seat: client for client in clients}
    host = clients[0]
    assert host.room_id is not None
    bid = False
    while host.view is not None and host.view["phase"] != "play":
        view = host.view
        mover = by_seat[view["to_act"][0]]
        legal = mover.view["legal"] if mover.view else []
        action = "solo" if not bid and "solo" in legal else ("pass" if "pass" in legal else legal[0])
        bid = bid or action == "solo"
        await mover.act(action)
        await host.wait_for(lambda c, seen=view: c.view is not seen)
    leader = by_seat[host.view["to_act"][0]]
    await leader.wait_for(lambda c: c.my_turn())
    assert leader.view is not None
    own = set(leader.view["hand"])
    foreign = next(card for card in (r + s for r in "AKQJT98765432" for s in "SHDC") if card not in own)
    before = await stored_state(live, host.room_id)
    answer = await leader.request_raw({"type": "act", "id": 1, "action": f"play {foreign}"})
    assert answer["code"] == "illegal_action" and "not in your hand" in answer["message"]
    answer = await leader.request_raw({"type": "act", "id": 2, "action": "play ZZ"})
    assert answer["code"] == "malformed_action"
    assert await stored_state(live, host.room_id) == before
    # Play on (first legal card) until someone who must follow suit could break the rule; try it.
    tried = False
    while not tried and host.view is not None and host.view["phase"] == "play":
        view = host.view
        mover = by_seat[view["to_act"][0]]
        await mover.wait_for(lambda c: c.my_turn())
        assert mover.view is not None
        trick = mover.view["trick"]
        if trick and trick["cards"]:
            suit = trick["cards"][0][1][1]
            hand = mover.view["hand"]
            off_suit = [card for card in hand if card[1] != suit]
            if any(card[1] == suit for card in hand) and off_suit:
                before = await stored_state(live, host.room_id)
                answer = await mover.request_raw({"type": "act", "id": 3, "action": f"play {off_suit[0]}"})
                assert answer["code"] == "illegal_action" and "must follow suit" in answer["message"]
                assert await stored_state(live, host.room_id) == before
                tried = True
        await mover.act(mover.view["legal"][0])
        await host.wait_for(lambda c, seen=view: c.view is not seen)
    assert tried, "a follower holding the led suit and another suit came up"


async def test_a_stale_action_is_answered_with_a_fresh_state(connect: Connect) -> None:
    clients = await started_table(connect)
    host = clients[0]
    assert host.view is not None
    waiter = next(c for c in clients if c.seat not in host.view["to_act"])
    count = len(waiter.received)
    answer = await waiter.request_raw({"type": "act", "id": 99, "action": "pass"})
    assert answer["code"] == "not_your_turn"
    kinds = [m["type"] for m in waiter.received[count:]]
    assert kinds == ["state", "error"], "the refusal comes after a fresh state"
