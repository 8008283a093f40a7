"""A property-based fuzzer against a live server: five clients send random sequences of well-formed and
malformed requests, in JSON text and msgpack binary frames. On the memory store, and on the Redis store
with the Redis coordination (as `python -m server --store redis://...` runs; a key prefix of its own per
sequence, deleted afterwards).

After each sequence: the server is alive, every request got its answer, an error changed nothing (the
rooms, the store and every connection's room and seat are as before), and no frame sent to a seat named
a card of another seat's hidden hand (checked against the deal records of the server's live sessions).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.leak_check import cards_in, hidden_card_leaks
from server.client import WhistClient
from server.coord import new_process_id, redis_coordination
from server.rules import ruleset_names
from server.server import WhistServer
from server.settings import Limits
from server.store import MemoryStore, Store
from server.store.redis import RedisStore
from server.table.state import to_stored

REDIS_URL = os.environ.get("WHIST_TEST_REDIS", "redis://127.0.0.1:6379/0")  # as tests/conftest.py
RULESETS = ruleset_names()
GUARD_SECONDS = 600.0  # a Redis sequence that has not ended by then is stuck

ROOM = "$room"  # replaced by the fuzzed room's id when sent
TOKEN = "$token"  # replaced by the sending client's own seat token
CLIENTS = 5
SCALARS = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False) | st.text(
    max_size=12)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children,
                                                                      max_size=4),
    max_leaves=10,
)
ACTIONS = st.sampled_from(["pass", "play AS", "play 2C", "bid 5", "abundance", "solo", "misere", "trump H",
                           "discard 3D", "accept", "prop", "", "play", "play ZZ", "play AS extra"])


def request(kind: str, **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"type": st.just(kind), **fields})


SEATS = st.none() | st.integers(0, 3)
ROOM_IDS = st.sampled_from([ROOM, ROOM, "nope1234", ""])
WELL_FORMED = st.one_of(
    request("ping"),
    request("hello", name=st.text(min_size=1, max_size=32)),
    request("list_rooms", subscribe=st.booleans()),
    request("get_state"),
    request("get_records"),
    request("join", room_id=ROOM_IDS, seat=SEATS),
    request("watch", room_id=ROOM_IDS),
    request("resume", room_id=ROOM_IDS, token=st.sampled_from([TOKEN, "not-a-token"])),
    request("leave"),
    request("start"),
    request("ready"),
    request("end_game"),
    request("add_bot", seat=st.integers(0, 3), bot=st.sampled_from(["random", "heuristic", "oracle"])),
    request("remove_bot", seat=st.integers(0, 3)),
    request("act", action=ACTIONS),
    request("act", action=ACTIONS, seat=st.integers(0, 3)),
    request("create_room", ruleset=st.sampled_from([*RULESETS, "poker"]),
            seat=SEATS, listed=st.booleans()),
    request("leaderboard"),
)
# A well-formed request with one field broken (wrong type, unknown field, unknown type).
BROKEN = st.tuples(WELL_FORMED, st.sampled_from(["type", "extra", "field"]), JSON_VALUES).map(
    lambda parts: {**parts[0], **({"type": parts[2]} if parts[1] == "type" else
                                  {"surprise": parts[2]} if parts[1] == "extra" else
                                  {next(iter(set(parts[0]) - {"type"}), "x"): parts[2]})})


@dataclass(frozen=True)
class Frame:
    """A frame sent as is: not decodable, or not an object, or oversized."""

    data: bytes | str


MALFORMED = st.one_of(
    BROKEN,
    st.binary(max_size=40).map(Frame),
    st.text(max_size=40).map(Frame),
    JSON_VALUES.map(lambda value: Frame(json.dumps(value))),
    st.just(Frame("x" * 70_000)),
)
# ("legal", n, k): k times, a client that may act takes its n-th legal action (or, between deals, the
# sender says `ready`): the deals go forward, to their end and the next one.
LEGAL = st.tuples(st.just("legal"), st.integers(0, 50), st.integers(1, 30))
STEP = st.tuples(st.integers(0, CLIENTS - 1), st.booleans(),
                 st.one_of(LEGAL, LEGAL, LEGAL, WELL_FORMED, MALFORMED))
SETUP = st.tuples(st.sampled_from(RULESETS), st.booleans())


@dataclass
class Fuzz:
    """One run: the server, its clients, and what the checks need."""

    server: WhistServer
    clients: list[WhistClient]
    room_id: str = ""
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(10_000))
    answers: int = 0


async def snapshot(fuzz: Fuzz) -> Any:
    """What an erroring request must not change: every live room, every stored room (its version and
    state: every write, log entries included, bumps the version), and every connection's place."""
    rooms = {room_id: (room.version, json.dumps(to_stored(room.table), sort_keys=True),
                       json.dumps(room.session.snapshot(), sort_keys=True) if room.session else None)
             for room_id, room in fuzz.server.tables.rooms.items()}
    store = fuzz.server.store
    stored = {}
    for room_id in sorted(await store.room_ids()):
        found = await store.load(room_id)
        assert found is not None
        stored[room_id] = (found.version, json.dumps(found.state, sort_keys=True))
    members = fuzz.server.tables.members
    places = sorted((members[conn].room.room_id if conn in members else "",
                     (members[conn].participant if conn in members else None) or "", conn.name)
                    for conn in fuzz.server.connections)
    return rooms, stored, places


def resolve(value: Any, client: WhistClient, room_id: str) -> Any:
    if value == ROOM:
        return room_id
    if value == TOKEN:
        return client.token or "no-token"
    return value


async def send_step(fuzz: Fuzz, sender: int, binary: bool, what: Any) -> None:
    """Send one frame, wait for its one answer, and check an error left everything as it was."""
    expect_id: int | None = None
    if isinstance(what, tuple):  # ("legal", n): a client that may act takes its n-th legal action
        acting = [number for number, client in enumerate(fuzz.clients)
                  if client.view and client.view["legal"]]
        if acting:
            sender = acting[what[1] % len(acting)]
            legal = fuzz.clients[sender].view["legal"]  # type: ignore[index]
            what = {"type": "act", "action": legal[what[1] % len(legal)]}
        else:
            what = {"type": "ready"}  # between deals, the next one needs everyone ready
    client = fuzz.clients[sender]
    client.binary = binary
    if isinstance(what, Frame):
        frame: str | bytes = what.data
    else:
        message = {key: resolve(value, client, fuzz.room_id) for key, value in what.items()}
        expect_id = next(fuzz.ids)
        message["id"] = expect_id
        frame = msgpack.packb(message, use_bin_type=True) if binary else json.dumps(message)
    before = await snapshot(fuzz)
    if expect_id is not None:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        client.pending[expect_id] = future
        await client.send_raw(frame)
        answer = await asyncio.wait_for(future, 30)
    else:
        await client.send_raw(frame)
        answer = await asyncio.wait_for(client.unmatched.get(), 30)
        assert answer.get("id") is None or isinstance(answer.get("id"), int | str)
    fuzz.answers += 1
    assert answer["type"] in ("ok", "error"), answer
    if answer["type"] == "error":
        assert await snapshot(fuzz) == before, f"an error ({answer['code']}) changed the server's state"
        assert answer["code"] != "internal_error", answer
        named = cards_in(frame if isinstance(frame, str) else frame.decode("utf-8", "replace"))
        assert cards_in(answer) <= named, f"an error named cards the request did not: {answer}"
    elif isinstance(what, dict) and what.get("type") == "get_records":
        assert all("seed" in record for record in answer["result"]["records"]), "only finished deals"


def deal_records(server: WhistServer) -> dict[tuple[str, int], dict[str, Any]]:
    """(room id, deal number) -> the deal's record, for every deal of every live session."""
    records: dict[tuple[str, int], dict[str, Any]] = {}
    for room_id, room in server.tables.rooms.items():
        if room.session is None:
            continue
        for number, entry in enumerate(room.session.history):
            records[room_id, number] = entry["record"]
        if not room.session.deal.finished:
            records[room_id, len(room.session.history)] = room.session.deal.to_record()
    return records


async def run_sequence(setup: tuple[str, bool], steps: list[tuple[int, bool, Any]], static: Path,
                       redis: bool = False) -> None:
    # Bots never get to move (a long bot delay): every change comes from the five clients, one request at a
    # time, so "an error changed nothing" can compare the state right before and after it.
    prefix = f"test:fuzz:{uuid.uuid4().hex}:"
    store: Store = RedisStore(REDIS_URL, prefix=prefix) if redis else MemoryStore()
    coordination = redis_coordination(REDIS_URL, new_process_id("fuzz"), prefix=prefix) if redis else None
    server = WhistServer(store, bot_delay=3600.0, static_dir=static,
                         limits=Limits(rate=10_000.0, burst=10_000.0), coordination=coordination)
    try:
        await fuzz_server(server, setup, steps)
    finally:
        if redis:
            cleaner = RedisStore(REDIS_URL, prefix=prefix)
            await cleaner.delete_everything()
            await cleaner.close()


async def fuzz_server(server: WhistServer, setup: tuple[str, bool],
                      steps: list[tuple[int, bool, Any]]) -> None:
    """Start the server, run the sequence and the checks, stop it."""
    host, port = await server.start("127.0.0.1", 0)
    url = f"ws://{host}:{port}/ws"
    clients = [await WhistClient.connect(url, name=f"P{number}", binary=number % 2 == 1)
               for number in range(CLIENTS)]
    fuzz = Fuzz(server, clients)
    try:
        ruleset, listed = setup
        fuzz.room_id = (await clients[0].create_room(ruleset, seat=0, listed=listed))["room_id"]
        for seat in (1, 2, 3):
            await clients[seat].join(fuzz.room_id, seat)
        await clients[4].watch(fuzz.room_id)
        await clients[0].start()
        sent = 0
        for sender, binary, what in steps:
            for _ in range(what[2] if isinstance(what, tuple) else 1):
                await send_step(fuzz, sender, binary, what)
                sent += 1
        assert fuzz.answers == sent, "every request was answered"
        # Alive: a new client is served, and every old one that was not closed for abuse still is.
        async with await WhistClient.connect(url, name="Late") as late:
            assert await late.request("ping") == {}
        for client in clients:
            if not client.closed.is_set():
                assert await client.request("ping") == {}
        await asyncio.sleep(0)
        records = deal_records(server)
        checked = 0
        for client in clients:
            frames, leaks = hidden_card_leaks(client.received, records)
            assert not leaks, leaks
            checked += frames
        assert checked > 0
    finally:
        for client in clients:
            await client.close()
        await server.stop()


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(setup=SETUP, steps=st.lists(STEP, min_size=5, max_size=60))
def test_random_requests_from_five_clients_change_nothing_on_error_and_leak_no_card(
    setup: tuple[str, bool], steps: list[tuple[int, bool, Any]]
) -> None:
    with tempfile.TemporaryDirectory() as static:
        asyncio.run(run_sequence(setup, steps, Path(static)))


# Fewer sequences on Redis (each request is a few round trips more): the same checks, through the Redis
# store's scripts and the Redis coordination (leases, fan-out, presence).
@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(setup=SETUP, steps=st.lists(STEP, min_size=5, max_size=40))
def test_random_requests_on_the_redis_store_change_nothing_on_error_and_leak_no_card(
    setup: tuple[str, bool], steps: list[tuple[int, bool, Any]]
) -> None:
    with tempfile.TemporaryDirectory() as static:
        # A guard, not a time limit: a sequence takes seconds. Once (one run in five, at load average 30)
        # the server's shutdown waited for ever on a coordination task that had been cancelled inside a
        # Redis call and kept going: a failure naming where it waits beats a hung suite.
        asyncio.run(asyncio.wait_for(run_sequence(setup, steps, Path(static), redis=True), GUARD_SECONDS))


def test_the_leak_check_finds_a_hidden_card_and_accepts_public_ones() -> None:
    record = {"hands": ["AS KS", "AH KH", "AD KD", "AC KC"], "turn_up": "KC",
              "actions": [[0, "pass"], [1, "play AH"]]}
    records = {("r", 0): record}

    def state(cards: list[str], seat: int | None = 0, phase: str = "play") -> dict[str, Any]:
        return {"type": "state", "room_id": "r", "you": {"seat": seat}, "room": {"deal_number": 0},
                "view": {"phase": phase, "hand": cards, "exposed": {}}}

    # Own hand, a played card and the turn-up are fine; another seat's hidden card is not.
    assert hidden_card_leaks([state(["AS", "KS", "AH", "KC"])], records) == (1, [])
    assert hidden_card_leaks([state(["AS", "AD"])], records) == (1, ["('r', 0): seat 0 was sent AD in a "
                                                                     "state frame"])
    assert hidden_card_leaks([state(["AS"], seat=None)], records)[1] == [
        "('r', 0): seat None was sent AS in a state frame"]
    # An exposed hand is public from then on; a card exposed from the wrong hand is a leak.
    exposed = {"type": "events", "room_id": "r", "deal_number": 0,
               "events": [{"type": "exposed", "seat": 2, "cards": ["AD", "KD"]}]}
    assert hidden_card_leaks([state(["AS"]), exposed, state(["AS", "KD"])], records) == (3, [])
    wrong = {**exposed, "events": [{"type": "exposed", "seat": 2, "cards": ["AC"]}]}
    assert len(hidden_card_leaks([wrong], records)[1]) == 2
    # Once the deal has ended everything may be shown; frames of other rooms or deals are not judged.
    ended = state(["AS", "KS", "AH", "KH", "AD", "KD", "AC", "KC"], phase="end")
    assert hidden_card_leaks([ended, state(["AC"])], records) == (0, [])
    assert hidden_card_leaks([{**state(["AC"]), "room_id": "other"}], records) == (0, [])
