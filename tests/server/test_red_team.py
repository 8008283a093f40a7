"""Red team: a real server process attacked with real websocket clients (JSON and msgpack), looking for
hidden information reaching a connection that may not see it, and for bad input that changes state."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from server_helpers import Connect, LiveServer, ServerProcess, cards_in

from server.client import ServerError, WhistClient
from server.rules import get_ruleset, ruleset_names
from server.rules.session import Session

# Contracts whose hidden information is the hardest to keep (exposed hands, secret discards, the trou):
# a fuzzing seat picks one of these whenever it is legal, so that they actually get played.
RARE_WORDS = ("spread-misere", "misere-etalee", "petite-misere-etalee", "grande-misere-etalee",
              "petite-misere", "misere", "solo")


#: Messages a second per connection on the module's server (bursts of twice that).
RED_TEAM_RATE = 200


@pytest.fixture(scope="module")
def server() -> Iterator[ServerProcess]:
    """`python -m server` on an ephemeral port, memory store, no bot delay."""
    # Every test of the module talks to this one process from 127.0.0.1: the per-address limits (tested
    # in test_limits.py) must not carry one test's connections and rooms over to the next.
    proc = ServerProcess("--bot-delay", "0", "--log-level", "error", "--rate-limit", str(RED_TEAM_RATE),
                         "--max-connections-per-address", "0", "--max-rooms-per-address", "0").start()
    yield proc
    proc.terminate()


async def client(server: ServerProcess, name: str = "Player", binary: bool = False) -> WhistClient:
    return await WhistClient.connect(server.url, name=name, binary=binary)


def http_get(server: ServerProcess, path: str) -> tuple[int, bytes]:
    """A raw HTTP GET (no client-side normalisation of the path); returns (status, whole response)."""
    host, port = "127.0.0.1", server.port
    with socket.create_connection((host, port), timeout=5) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1]), data


# ------------------------------------------------------------------------------------------- HTTP


@pytest.mark.parametrize("path", [
    "/../server/server.py", "/%2e%2e/server/server.py", "/%2e%2e%2fserver%2fserver.py",
    "/..%2f..%2fpyproject.toml",
    "/js/../../pyproject.toml", "/%2fetc%2fpasswd", "//etc/passwd", "/..%5cserver%5cserver.py",
    "/%00", "/index.html%00.js", "/" + "a" * 5000, "/%ff%fe",
])
def test_static_paths_never_leave_client_web_and_odd_ones_get_404(server: ServerProcess, path: str) -> None:
    status, response = http_get(server, path)
    assert status == 404, response[:200]
    assert b"import " not in response and b"root:" not in response and b"[project]" not in response


def test_health_and_headers_name_no_secret(server: ServerProcess) -> None:
    status, response = http_get(server, "/health")
    assert status == 200
    body = json.loads(response.split(b"\r\n\r\n", 1)[1])
    # The process's pid and replica id name where a connection landed; nothing else.
    assert set(body) == {"status", "rooms", "connections", "store", "requests", "pid", "replica", "archive"}
    # The archive's block says how its writes go, never where it is (a URL may carry a password).
    assert set(body["archive"]) == {"kind", "healthy", "pending", "written", "already", "failures",
                                    "last_error"}
    assert body["archive"]["kind"] == "sqlite" and b"sqlite:" not in response
    assert b"secret" not in response.lower() and b"token" not in response.lower()


# ------------------------------------------------------------------------------------------- rooms


async def test_a_refused_join_leaves_the_connection_in_its_room(server: ServerProcess) -> None:
    # "A bad request changes nothing": a seated player who asks for a seat in a full room keeps its
    # own seat, its room and its state pushes.
    player = await client(server, "Alice")
    await player.create_room("solo-whist", seat=0, session={"deals": 1})
    await player.start()
    await player.wait_for(lambda c: c.view is not None)
    other = await client(server, "Bob")
    await other.create_room("solo-whist", seat=0)
    assert other.room_id is not None
    fillers = []
    for seat in (1, 2, 3):
        filler = await client(server, f"F{seat}")
        await filler.join(other.room_id, seat)
        fillers.append(filler)
    with pytest.raises(ServerError) as refused:
        await player.join(other.room_id)
    assert refused.value.code == "room_full"
    with pytest.raises(ServerError) as taken:
        await player.join(other.room_id, 2)
    assert taken.value.code == "seat_taken"
    await player.request("get_state")  # still in its own room
    assert player.state is not None and player.state["room_id"] != other.room_id
    assert player.state["you"]["seat"] == 0 and player.room is not None
    assert player.room["seats"][0]["connected"]
    for c in (player, other, *fillers):
        await c.close()


async def test_daily_bots_cannot_be_swapped_for_weaker_ones(server: ServerProcess) -> None:
    # Everyone of a day plays against the same three heuristic bots: the host of a daily room may not
    # remove them, nor put another bot kind in their place (a weaker bot would buy a better score).
    player = await client(server, "Daily")
    answer = await player.request("daily")
    await player.wait_for(lambda c: c.view is not None)
    with pytest.raises(ServerError) as removed:
        await player.request("remove_bot", seat=1)
    with pytest.raises(ServerError) as added:
        await player.request("add_bot", seat=1, bot="random")
    assert player.room is not None
    assert [seat["name"] for seat in player.room["seats"][1:]] == ["heuristic bot"] * 3
    assert removed.value.code == "daily_room" and added.value.code == "seat_taken"
    assert player.state is not None and answer["room_id"] == player.state["room_id"]
    await player.close()


# ------------------------------------------------------------------------------------------- hidden cards


def rare_first(view: dict[str, Any], turn: int) -> str:
    """A legal action, preferring the contracts that hide or expose cards; else a spread choice."""
    legal: list[str] = view["legal"]
    for word in RARE_WORDS:
        for action in legal:
            if action.split()[0] == word:
                return action
    if "pass" in legal and view["phase"] == "auction":
        return "pass"
    return legal[turn % len(legal)]


def assert_no_hidden_card(messages: list[dict[str, Any]], record: dict[str, Any], seat: int | None) -> int:
    """No frame of the deal before its end names a card `seat` (None: a spectator) may not see: a card
    is known once it is the seat's own (or its own discard), the turned-up card, played, or lying face
    up; a face-up hand is its declarer's cards not yet played and not discarded. Returns frames checked."""
    hands = [set(hand.split()) for hand in record["hands"]]
    discards = {who: action.split()[1] for who, action in record["actions"] if action.startswith("discard ")}
    known: set[str] = set(hands[seat]) if seat is not None else set()
    if seat is not None and seat in discards:
        known.add(discards[seat])
    if record.get("turn_up"):
        known.add(record["turn_up"])
    played: set[str] = set()
    checked = 0
    for message in messages:
        if message["type"] == "events":
            for event in message["events"]:
                if event["type"] == "card":
                    played.add(event["card"])
                    known.add(event["card"])
                elif event["type"] == "exposed":
                    who = event["seat"]
                    assert set(event["cards"]) == hands[who] - played - {discards.get(who)}, event
                    known.update(event["cards"])
            if any(event["type"] in ("end", "thrown_in") for event in message["events"]):
                break
        if message["type"] == "state" and message["view"] is not None:
            if message["view"]["phase"] == "end":
                break
            for who, cards in message["view"]["exposed"].items():
                assert set(cards) <= hands[int(who)] - {discards.get(int(who))}
                known.update(cards)
        leaked = cards_in(message) - known
        assert not leaked, f"seat {seat} was sent hidden cards {sorted(leaked)} in {message}"
        checked += 1
    return checked


def this_deal_starts(received: list[dict[str, Any]]) -> int:
    """The index of the first frame of the last deal (its first `state` whose phase is not `end`)."""
    start = 0
    previous_phase = "end"
    for index, message in enumerate(received):
        if message["type"] == "state" and message["view"] is not None:
            phase = message["view"]["phase"]
            if previous_phase == "end" and phase != "end":
                start = index
            previous_phase = phase
    return start


def assert_exposed_on_time(received: list[dict[str, Any]]) -> None:
    """A face-up hand appears in no `state` before the moment its contract names: `before_play` (once
    the auction is over), `after_trick1` (once the first trick is complete)."""
    for message in received:
        view = message["view"] if message["type"] == "state" else None
        if not view or not view["exposed"] or view["phase"] == "end":
            continue
        contract = view["contract"]
        assert contract is not None, f"a hand exposed during the auction: {view['exposed']}"
        if contract["expose"] == "after_trick1":
            assert len(view["tricks"]) >= 1, f"exposed before trick 1 ended: {view['exposed']}"
        else:
            assert contract["expose"] == "before_play" and view["phase"] == "play", view["exposed"]
        assert {int(seat) for seat in view["exposed"]} <= set(contract["declarers"])


async def play_fuzz_deal(players: list[WhistClient], timeout: float = 60.0) -> None:
    """Every seat acts as soon as it may, choosing with `rare_first`, until the deal ends."""
    turns = [0]

    def choose(view: dict[str, Any]) -> str:
        turns[0] += 1
        return rare_first(view, turns[0])

    await asyncio.gather(*(p.play_deal(choose, timeout) for p in players))


@pytest.mark.parametrize("ruleset", ruleset_names())
async def test_rare_contracts_leak_no_hidden_card_to_any_seat_or_spectator(
    server: ServerProcess, ruleset: str
) -> None:
    host = await client(server, "H0", binary=True)
    await host.create_room(ruleset, seat=0, session={"deals": 3})
    assert host.room_id is not None
    players = [host]
    for seat in (1, 2, 3):
        player = await client(server, f"H{seat}", binary=seat == 2)
        await player.join(host.room_id, seat)
        players.append(player)
    spectator = await client(server, "Watcher")
    await spectator.watch(host.room_id)
    await host.start()
    contracts: list[dict[str, Any]] = []
    for deal in range(3):
        for p in players:  # every seat sees the new deal before anyone plays it
            await p.wait_for(lambda c: c.view is not None and c.view["phase"] != "end")
        await play_fuzz_deal(players)
        await spectator.wait_for(lambda c: c.view is not None and c.view["phase"] == "end")
        for p in (*players, spectator):
            del p.received[:this_deal_starts(p.received)]
        records = await spectator.records()
        record = records[-1]
        if players[0].view and players[0].view["contract"]:
            contracts.append(players[0].view["contract"])
        for seat, p in enumerate(players):
            assert assert_no_hidden_card(p.received, record, seat) > 0
        assert assert_no_hidden_card(spectator.received, record, None) > 0
        for p in (*players, spectator):
            assert_exposed_on_time(p.received)
        # The deal's seed and secret reach nobody before the end.
        for p in (*players, spectator):
            for message in p.received:
                if message["type"] == "state" and message["view"] and message["view"]["phase"] != "end":
                    assert "seed" not in message["view"] and "dealt" not in message["view"]
                ended = message["type"] == "state" and message["view"] and message["view"]["phase"] == "end"
                if message["type"] != "ok" and not ended:  # `ok`: the get_records answer after the end
                    assert record["seed"] not in json.dumps(message), message
        assert spectator.room is not None
        if spectator.room["session_over"]:  # a session to a target (`whist`) may end before 3 deals
            break
        if deal < 2:
            for p in players:
                await p.ready()
    # The fuzzing choice did reach the contracts this test is about (a face-up hand or secret discards),
    # in the rulesets that have calls of their own (`whist` has no auction, so no such contract).
    if get_ruleset(ruleset).extra_vocabulary:
        assert any(contract["expose"] or contract["discard"] for contract in contracts), contracts
    for p in (*players, spectator):
        await p.close()


# ------------------------------------------------------------------------------------------- seats and tokens


async def four_seat_table(server: ServerProcess, ruleset: str = "solo-whist") -> list[WhistClient]:
    """Four humans seated (seat 2 on msgpack), the first deal dealt."""
    host = await client(server, "North")
    # No turn clock: these tables wait on the attacks, not on the players.
    await host.create_room(ruleset, seat=0, session={"deals": 2}, turn_seconds=0)
    assert host.room_id is not None
    players = [host]
    for seat in (1, 2, 3):
        player = await client(server, f"P{seat}", binary=seat == 2)
        await player.join(host.room_id, seat)
        players.append(player)
    await host.start()
    for player in players:
        await player.wait_for(lambda c: c.view is not None)
    return players


async def version_of(player: WhistClient) -> int:
    await player.request("get_state")
    assert player.room is not None
    return int(player.room["version"])


async def expect_code(player: WhistClient, code: str, kind: str, **fields: Any) -> str:
    with pytest.raises(ServerError) as refused:
        await player.request(kind, **fields)
    assert refused.value.code == code, (kind, fields, refused.value)
    return refused.value.message


async def test_nobody_acts_for_a_seat_that_is_not_theirs(server: ServerProcess) -> None:
    players = await four_seat_table(server)
    room_id = players[0].room_id
    assert room_id is not None
    view = players[0].view
    assert view is not None
    actor = players[view["to_act"][0]]
    assert actor.view is not None
    action = actor.view["legal"][0]
    others = [p for p in players if p is not actor]
    before = await version_of(actor)
    for other in others:  # another seat claims the acting seat, or just sends the acting seat's action
        await expect_code(other, "not_your_seat", "act", action=action, seat=actor.seat)
        await expect_code(other, "not_your_turn", "act", action=action)
    spectator = await client(server, "Spy")
    await spectator.watch(room_id)
    await expect_code(spectator, "spectator_cannot_act", "act", action=action)
    await expect_code(spectator, "spectator_cannot_act", "act", action=action, seat=actor.seat)
    await expect_code(spectator, "not_seated", "ready")
    await expect_code(spectator, "not_host", "end_game")
    for other in players[1:]:
        await expect_code(other, "not_host", "end_game")
        await expect_code(other, "not_host", "remove_bot", seat=0)
        await expect_code(other, "not_host", "add_bot", seat=None)
    # A token of another room, or a forged one, gives nothing.
    elsewhere = await client(server, "Elsewhere")
    await elsewhere.create_room("couleur", seat=0)
    assert elsewhere.token is not None
    await expect_code(spectator, "bad_token", "resume", room_id=room_id, token=elsewhere.token)
    await expect_code(spectator, "bad_token", "resume", room_id=room_id, token="x" * 43)
    assert await version_of(actor) == before
    # The same request id twice: the second is judged afresh (the seat has moved on), never applied twice.
    frame = {"type": "act", "id": "same", "action": action}
    first = await actor.request_raw(frame)
    second = await actor.request_raw(frame)
    assert first["type"] == "ok" and second["type"] == "error", second
    assert second["code"] in ("not_your_turn", "illegal_action")
    assert await version_of(actor) == before + 1
    for p in (*players, spectator, elsewhere):
        await p.close()


async def test_an_old_token_is_dead_once_the_seat_was_given_up_and_taken_again(server: ServerProcess) -> None:
    players = await four_seat_table(server)
    room_id = players[0].room_id
    assert room_id is not None
    leaver = players[1]
    old_token = leaver.token
    assert old_token is not None
    await leaver.request("leave")
    await expect_code(leaver, "not_in_room", "act", action="pass")
    await expect_code(leaver, "bad_token", "resume", room_id=room_id, token=old_token)
    newcomer = await client(server, "Newcomer")
    await newcomer.join(room_id, 1)
    assert newcomer.token != old_token
    thief = await client(server, "Thief")
    await expect_code(thief, "bad_token", "resume", room_id=room_id, token=old_token)
    # The newcomer resumed elsewhere: the first connection of that token stops holding the seat.
    assert newcomer.token is not None
    second = await client(server, "Newcomer again")
    await second.resume(room_id, newcomer.token)
    await newcomer.request("get_state")
    assert newcomer.state is not None and newcomer.state["you"]["seat"] is None
    assert newcomer.view is not None and newcomer.view["hand"] is None  # no longer sees the hand
    await expect_code(newcomer, "spectator_cannot_act", "act", action="pass")
    for p in (*players, newcomer, thief, second):
        await p.close()


async def test_no_action_and_no_ready_count_during_the_end_of_deal_pause(server: ServerProcess) -> None:
    players = await four_seat_table(server)
    await play_fuzz_deal(players)
    for p in players:
        await p.wait_for(lambda c: c.view is not None and c.view["phase"] == "end")
    before = await version_of(players[0])
    for p in players:
        await expect_code(p, "illegal_action", "act", action="pass")
        await expect_code(p, "illegal_action", "act", action="play AS")
    assert await version_of(players[0]) == before
    # `ready` twice from the same seat deals nothing until everyone is ready.
    await players[0].ready()
    answer = await players[0].ready()
    assert answer["waiting_for"] == [1, 2, 3]
    assert players[0].view is not None and players[0].view["phase"] == "end"
    for p in players:
        await p.close()


# ------------------------------------------------------------------------------------------- bad input


WRONG_VALUES: list[Any] = [None, True, -1, 4, 1.5, 10**30, "", "x" * 5000, [], {}, [1, [2, [3]]],
                           {"a": {"b": 1}}, float("inf")]
FIELDS: dict[str, list[str]] = {
    "hello": ["name", "events"], "list_rooms": ["subscribe"],
    "create_room": ["ruleset", "house_rules", "session", "listed", "bot", "name", "seat", "grace_seconds"],
    "join": ["room_id", "seat"], "resume": ["room_id", "token"], "watch": ["room_id"],
    "add_bot": ["seat", "bot"], "remove_bot": ["seat"], "act": ["action", "seat"],
    "leaderboard": ["day", "limit"], "ready": ["extra"], "get_records": ["extra"], "start": ["extra"],
}


def frame_of(message: dict[str, Any], binary: bool) -> str | bytes:
    if binary:
        packed: bytes = msgpack.packb(message, use_bin_type=True)
        return packed
    return json.dumps(message)


@pytest.mark.parametrize("binary", [False, True])
async def test_wrong_types_in_every_field_are_refused_and_change_nothing(
    server: ServerProcess, binary: bool
) -> None:
    players = await four_seat_table(server)
    room_id, token = players[1].room_id, players[1].token
    assert room_id is not None and token is not None
    before = await version_of(players[0])
    attacker = players[1]
    ids = iter(range(10_000, 100_000))
    answered = 0
    resumed = 0  # each resume is stored (the seat's claim: one seat, one connection)
    for kind, fields in FIELDS.items():
        for field in fields:
            # A fresh connection per field (with the seat's token): the server closes a connection that
            # sends 30 bad messages within 10 seconds, and that is not what is tested here.
            await attacker.close()
            attacker = await client(server, "P1", binary=binary)
            await attacker.resume(room_id, token)
            resumed += 1
            for value in WRONG_VALUES:
                if binary and isinstance(value, int) and abs(value) > 2**63:
                    continue  # not representable in msgpack
                message: dict[str, Any] = {"type": kind, "id": next(ids), field: value}
                if kind == "create_room" and field != "ruleset":
                    message["ruleset"] = "couleur"
                answer = await attacker.request_raw(message)
                answered += 1
                if answer["type"] == "ok":
                    # Only the values a lax reading accepts may pass, and they must not move the table.
                    # Only the values a lax reading accepts (a bool where a bool is due, a number for
                    # a number of seconds) may pass, never a bool for a seat or a count.
                    counted = field in ("seat", "limit", "deals", "target")
                    assert not (isinstance(value, bool) and counted), answer
                    if kind in ("create_room", "join"):  # it went elsewhere: back to the seat
                        await attacker.resume(room_id, token)
                        resumed += 1
                else:
                    assert answer["message"] and len(answer["message"]) < 2000, answer
                    assert answer["code"] != "internal_error", (message, answer)
    assert answered > 300
    assert await version_of(players[0]) == before + resumed, "nothing but the resumes was stored"
    for p in (*players, attacker):
        await p.close()


async def answer_to(player: WhistClient, frame: str | bytes) -> dict[str, Any]:
    """The answer to a raw frame, whether the server could read its id (1) or not (null)."""
    future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    player.pending[1] = future
    await player.send_raw(frame)
    unmatched = asyncio.ensure_future(player.unmatched.get())
    done, _ = await asyncio.wait({future, unmatched}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
    unmatched.cancel()
    player.pending.pop(1, None)
    assert done, "no answer"
    return done.pop().result()


@pytest.mark.parametrize("frame, code", [
    ('{"type": "create_room", "id": 1, "ruleset": "couleur", "session": {"deals": true}}', "invalid_message"),
    ('{"type": "act", "id": 1, "action": "pass", "seat": true}', "invalid_message"),
    ('{"type": "join", "id": 1, "room_id": "x", "seat": 1.0}', "invalid_message"),
    ('{"type": "leaderboard", "id": 1, "limit": true}', "invalid_message"),
    ('{"type": "create_room", "id": 1, "ruleset": "couleur", "grace_seconds": NaN}', "invalid_message"),
    ('{"type": "create_room", "id": 1, "ruleset": "couleur", "grace_seconds": Infinity}', "invalid_message"),
    ('{"type": "create_room", "id": 1, "ruleset": "couleur", "house_rules": {"nope": 1}}', "bad_house_rules"),
    ('{"type": "leaderboard", "id": 1, "day": "2026-02-30"}', "invalid_message"),
    ('{"type": "leaderboard", "id": 1, "day": "../../etc/p"}', "invalid_message"),
    ('{"type": "ping", "id": 1, "type": "act"}', "invalid_message"),
    # A lone surrogate is valid JSON but no text: echoed back (as the id, as a field name) it made the
    # answer unsendable and the server dropped the connection.
    ('{"type": "ping", "id": "\\ud800"}', "bad_json"),
    ('{"type": "ping", "id": 1, "\\udc00": 1}', "bad_json"),
    ('{"type": "hello", "id": 1, "name": "\\ud83d\\ude00 \\\\ud800"}', "ok"),  # a pair, a plain backslash
    ('{"type": "ping", "id": ' + "9" * 5000 + '}', "bad_json"),
    ("[" * 100_000 + "]" * 100_000, "frame_too_large"),
    ('{"type": "create_room", "id": 1, "ruleset": "couleur", "house_rules": ' + "[" * 5000 + "]" * 5000 + "}",
     "bad_json"),
    ('{"type": "create_room", "id": 1, "ruleset": "couleur", "house_rules": {"a": '
     + "[" * 900 + "]" * 900 + "}}",
     "bad_house_rules"),
])
async def test_odd_json_frames_get_a_clear_error(server: ServerProcess, frame: str, code: str) -> None:
    player = await client(server)
    answer = await answer_to(player, frame)
    if code == "ok":
        assert answer["type"] == "ok", answer
    else:
        assert answer["type"] == "error" and answer["code"] == code, answer
        assert len(answer["message"]) < 2000
    assert await player.request("ping") == {}  # still connected
    await player.close()


@pytest.mark.parametrize("payload, code", [
    (msgpack.packb({"type": "ping", "id": msgpack.ExtType(1, b"x")}), "invalid_message"),
    (msgpack.packb({1: "ping"}), "bad_msgpack"),
    (msgpack.packb({"type": "create_room", "id": 1, "ruleset": "couleur",
                    "house_rules": {"x": msgpack.ExtType(5, b"\x00")}}), "bad_house_rules"),
    (b"\x91" * 60_000, "bad_msgpack"),  # 60 000 nested arrays
    (b"\xdd\xff\xff\xff\xff", "bad_msgpack"),  # an array that claims 4 billion items
    (msgpack.packb([1, 2]), "bad_msgpack"),
])
async def test_odd_msgpack_frames_get_a_clear_error(server: ServerProcess, payload: bytes, code: str) -> None:
    player = await client(server, binary=True)
    answer = await answer_to(player, payload)
    assert answer["type"] == "error" and answer["code"] == code, answer
    assert await player.request("ping") == {}
    await player.close()


async def test_one_connection_cannot_fill_the_server_with_rooms(server: ServerProcess) -> None:
    # Every room is kept (a waiting one in memory and in the lobby): one client creating rooms as fast
    # as the message rate allows would grow the lobby past what a client can read. A connection opens
    # at most 10 rooms a minute (create_room and daily alike); the refusal says so and keeps it open.
    spammer = await client(server, "Spammer")
    created = 0
    refusal = None
    for number in range(12):
        kind = "daily" if number == 11 else "create_room"
        fields: dict[str, Any] = {"ruleset": "solo-whist", "seat": None} if kind == "create_room" else {}
        try:
            await spammer.request(kind, **fields)
            created += 1
        except ServerError as refused:
            refusal = refused
    assert created == 10
    assert refusal is not None and refusal.code == "rate_limited" and "rooms" in refusal.message
    assert await spammer.request("ping") == {}
    other = await client(server, "Someone else")  # others are not affected
    await other.create_room("solo-whist", seat=None)
    for c in (spammer, other):
        await c.close()


# ------------------------------------------------------------------------------------------- error messages

ALL_CARDS = [rank + suit for rank in "AKQJT98765432" for suit in "SHDC"]


def visible_to(view: dict[str, Any]) -> set[str]:
    """The cards a view may name: its own hand and discard, the turned-up card, played and face-up cards."""
    seen = set(view["hand"] or [])
    if view.get("discarded"):
        seen.add(view["discarded"])
    if view.get("turn_up"):
        seen.add(view["turn_up"])
    for trick in [*view["tricks"], *([view["trick"]] if view["trick"] else [])]:
        seen.update(card for _, card in trick["cards"])
    for cards in view["exposed"].values():
        seen.update(cards)
    return seen


@pytest.mark.parametrize("ruleset", ruleset_names())
async def test_refusals_never_name_a_hidden_card(server: ServerProcess, ruleset: str) -> None:
    # Every seat and a spectator try every card (to play and to discard) and every call at several moments
    # of a deal: each refusal may name the card asked about and the cards its asker can see, nothing else.
    players = await four_seat_table(server, ruleset)
    room_id = players[0].room_id
    assert room_id is not None
    spectator = await client(server, "Spectator", binary=True)
    await spectator.watch(room_id)
    words = ["pass", "solo", "misere", "abundance", "trou", "petite-misere", "spread-misere", "misere-etalee",
             "propose H", "accept H", "trump S", "solo 6 S", "abondance 9 H"]
    step = 0
    probes = 0
    loop = asyncio.get_running_loop()
    while True:
        for p in (*players, spectator):
            await p.request("get_state")  # the state is pushed before the answer: now in sync
        view = players[0].view
        assert view is not None
        if view["phase"] == "end":
            break
        if step % 6 == 0:
            started, most = loop.time(), 0
            for p in (*players, spectator):
                assert p.view is not None
                known = visible_to(p.view)
                tries = [*(f"play {c}" for c in ALL_CARDS), *(f"discard {c}" for c in ALL_CARDS), *words]
                sent = 0
                for action in tries:
                    if action in p.view["legal"]:
                        continue
                    answer = await p.request_raw({"type": "act", "id": f"probe{probes}", "action": action})
                    probes += 1
                    sent += 1
                    assert answer["type"] == "error", (action, answer)
                    assert answer["code"] in ("not_your_turn", "illegal_action", "malformed_action",
                                              "spectator_cannot_act"), answer
                    named = cards_in(answer["message"]) - known - set(action.split()[1:2])
                    assert not named, f"refusing {action!r} to {p.seat} named {named}: {answer['message']}"
                most = max(most, sent)
            # Let each connection's rate-limit bucket (200 a second on this server, bursts of 400) win
            # back what this round took, with room for the few requests of the steps until the next
            # round: the bucket never runs low. Time spent probing counts (a slow machine waits less).
            await asyncio.sleep(max(0.0, 1.25 * most / RED_TEAM_RATE - (loop.time() - started)))
        acting = min(view["to_act"])
        actor = players[acting]
        assert actor.view is not None
        await actor.act(rare_first(actor.view, step))
        step += 1
    assert probes > 500
    for p in (*players, spectator):
        await p.close()


# ------------------------------------------------------------------------------------------- side paths


def assert_shows_only(player: WhistClient, own: set[str]) -> None:
    """The latest state names no card but the seat's own, the turned-up one and the played/exposed ones."""
    assert player.state is not None and player.view is not None
    assert cards_in(player.state) - visible_to(player.view) == set()
    assert set(player.view["hand"] or []) == own


async def test_resume_watch_records_and_lobby_after_a_restart_show_nothing_hidden(
    server_process: Any,
) -> None:
    proc = server_process("--bot-delay", "0", "--rate-limit", "200").start()
    players = await four_seat_table(proc)
    room_id = players[0].room_id
    assert room_id is not None
    for _ in range(6):  # a few actions into the deal
        view = players[0].view
        assert view is not None
        actor = players[min(view["to_act"])]
        assert actor.view is not None
        await actor.act(rare_first(actor.view, 0))
        for p in players:
            await p.request("get_state")
    hands = [set(p.view["hand"]) for p in players if p.view is not None]
    tokens = [p.token for p in players]
    for p in players:
        await p.close()
    proc.kill()
    proc.start()  # the same Redis prefix: the room comes back
    lobby_watcher = await client(proc, "Lobby")
    rooms = (await lobby_watcher.request("list_rooms"))["rooms"]
    assert rooms and cards_in(rooms) == set() and "token" not in json.dumps(rooms)
    spectator = await client(proc, "Spectator", binary=True)
    await spectator.watch(room_id)
    assert spectator.view is not None and spectator.view["hand"] is None
    assert_shows_only(spectator, set())
    assert await spectator.records() == []  # the deal in progress is never in the records
    back = []
    for seat, token in enumerate(tokens):
        returning = await client(proc, f"Back{seat}")
        assert token is not None
        await returning.resume(room_id, token)
        assert_shows_only(returning, hands[seat])
        assert await returning.records() == []
        back.append(returning)
    for p in (lobby_watcher, spectator, *back):
        await p.close()
    proc.terminate()


async def test_a_crowd_racing_for_seats_gets_each_seat_once(server: ServerProcess) -> None:
    host = await client(server, "Host")
    await host.create_room("couleur", seat=None, session={"deals": 1})
    room_id = host.room_id
    assert room_id is not None
    crowd = [await client(server, f"C{number}", binary=number % 2 == 1) for number in range(12)]

    async def try_join(member: WhistClient, number: int) -> int | None:
        try:
            result = await member.request("join", room_id=room_id, seat=None if number % 3 else number % 4)
        except ServerError as refused:
            assert refused.code in ("room_full", "seat_taken"), refused
            return None
        return int(result["seat"])

    results = await asyncio.gather(*(try_join(member, number) for number, member in enumerate(crowd)),
                                   host.request("start"), return_exceptions=True)
    seats = [seat for seat in results[:-1] if isinstance(seat, int)]
    assert len(seats) == len(set(seats)) and len(seats) <= 4, results
    await host.request("get_state")
    assert host.room is not None
    humans = [entry for entry in host.room["seats"] if entry["kind"] == "human"]
    assert len(humans) == len(seats)
    for member, seat in zip(crowd, results[:-1], strict=True):
        if not isinstance(seat, int):
            continue
        await member.request("get_state")
        assert member.state is not None and member.state["you"]["seat"] == seat
        assert member.view is None or member.view["seat"] == seat
    for c in (host, *crowd):
        await c.close()


@pytest.mark.parametrize("name", [
    "<img src=x onerror=alert(1)>", "Bob\u202eecilA", "tab\there\nnew line\x07", "\U0001F0A1" * 32, "AS KH",
])
async def test_odd_names_reach_the_table_unchanged_and_bounded(server: ServerProcess, name: str) -> None:
    # The server passes names through as data (the web client draws them as text nodes, client_web/js/dom.js);
    # they are bounded, and a name that looks like cards does not stop the event pushes.
    host = await client(server, "Host")
    await host.create_room("solo-whist", seat=0)
    assert host.room_id is not None
    guest = await client(server, name)
    await guest.join(host.room_id, 1)
    await host.wait_for(lambda c: c.room is not None and c.room["seats"][1]["name"] == name)
    seat_events = [event for message in host.received if message["type"] == "events"
                   for event in message["events"] if event["type"] == "seat_changed"]
    assert seat_events and seat_events[-1]["name"] == name
    await expect_code(guest, "invalid_message", "hello", name=name[0] * 33)
    assert (await guest.request("hello", name="   "))["name"] == "Player"
    for c in (host, guest):
        await c.close()


async def test_asking_for_the_records_again_and_again_does_not_stall_others(
    live: LiveServer, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `get_records` rebuilt every finished deal by replaying the room's whole log on the event loop:
    # one connection asking for the records of a long session, within its message rate, stalled every
    # other connection for seconds (1.4 s for a ping behind 20 requests on 300 deals). The answer must
    # come from the live session: no log read, no action replayed, whatever the session's length. (How
    # long a ping waits behind such a flood is a benchmark figure: bench/records_stall.py.)
    asker = await connect("Asker", binary=True)
    await asker.create_room("solo-whist", seat=None, session={"deals": 12}, bot="random", listed=False)
    await asker.start()
    await asker.wait_for(lambda c: c.room is not None and c.room["session_over"], timeout=120)
    records = await asker.records()
    assert len(records) >= 12
    replayed: list[int] = []
    logs_read: list[str] = []
    apply = Session.apply
    read_log = live.server.tables.store.read_log

    def counting_apply(session: Session, seat: int, action: str) -> Any:
        replayed.append(seat)
        return apply(session, seat, action)

    async def counting_read_log(room_id: str) -> list[dict[str, Any]]:
        logs_read.append(room_id)
        return await read_log(room_id)

    monkeypatch.setattr(Session, "apply", counting_apply)
    monkeypatch.setattr(live.server.tables.store, "read_log", counting_read_log)
    bystander = await connect("Bystander")
    flood = [asyncio.ensure_future(asker.request("get_records", timeout=120)) for _ in range(20)]
    assert await bystander.request("ping", timeout=60) == {}
    answers = await asyncio.gather(*flood)
    assert all(answer["records"] == records for answer in answers)
    assert replayed == [] and logs_read == [], "get_records replayed the log instead of using the session"
