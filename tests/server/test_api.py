"""The HTTP API (server/api.py) on a real server over real HTTP: each endpoint's answers, with an archive
on SQLite and on PostgreSQL written directly (`write_session`); 401, 404, 503 (no archive, an archive
that does not answer); a history that names nobody's player key or hash; and a live room's records,
played with bots, equal to what `get_records` answers."""

from __future__ import annotations

import asyncio
import http.client
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from archive_sessions import bots, finished
from server_helpers import Connect, LiveServer, random_choice

from server.archive import Archive, ArchiveWriter, SeatEntry, open_archive, player_hash
from server.rules.record import replay
from server.server import WhistServer
from server.store import MemoryStore

# Player keys as the browser makes them (16 to 128 URL-safe characters).
KEYS = {name: f"{name}-player-key-0123456789" for name in ("ann", "bob", "carl")}
ANN, BOB, CARL = KEYS["ann"], KEYS["bob"], KEYS["carl"]


def humans(*names: str) -> list[SeatEntry]:
    """Human seats with the players' keys (hashed, as the archive keeps them)."""
    return [SeatEntry("human", name, player_hash(KEYS[name])) for name in names]


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    text: str

    @property
    def json(self) -> Any:
        return json.loads(self.text)


def _get(base: str, path: str, headers: dict[str, str]) -> Answer:
    address = urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname or "127.0.0.1", address.port, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        fields = {name.lower(): value for name, value in response.getheaders()}
        return Answer(response.status, fields, response.read().decode())
    finally:
        connection.close()


async def get(base: str, path: str, key: str | None = None, authorization: str | None = None) -> Answer:
    """GET `path` over a real HTTP connection (in a thread: the server runs on this loop)."""
    headers = {}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    if authorization is not None:
        headers["Authorization"] = authorization
    return await asyncio.to_thread(_get, base, path, headers)


async def serve(tmp_path: Path, archive: ArchiveWriter | None) -> tuple[WhistServer, str]:
    static = tmp_path / "static"
    static.mkdir(exist_ok=True)
    (static / "index.html").write_text("<!doctype html><title>whist</title>")
    server = WhistServer(MemoryStore(), bot_delay=0.0, static_dir=static, archive=archive)
    host, port = await server.start("127.0.0.1", 0)
    return server, f"http://{host}:{port}"


@dataclass
class Served:
    base: str
    archive: Archive  # another connection to the server's archive, as a test's own reader and writer


@pytest.fixture
async def served(archive_url: str, tmp_path: Path) -> AsyncIterator[Served]:
    """A server whose archive (SQLite, then PostgreSQL) holds three sessions: ann and bob with two bots
    (twice, rated), and carl alone with three bots."""
    writer = await open_archive(archive_url)
    await writer.write_session(finished("s-ab-1", [*humans("ann", "bob"), *bots("expert", "basic")],
                                        deals=6, seed=3, room_id="room-ab", started_at=1_000.0))
    await writer.write_session(finished("s-ab-2", [*bots("expert"), *humans("bob", "ann"), *bots("basic")],
                                        deals=5, seed=4, started_at=5_000.0))
    await writer.write_session(finished("s-carl", [*humans("carl"), *bots("basic", "expert", "basic")],
                                        deals=4, seed=5, ruleset="couleur", started_at=9_000.0))
    server, base = await serve(tmp_path, ArchiveWriter(lambda: open_archive(archive_url)))
    yield Served(base, writer)
    await server.stop()
    await writer.close()


async def test_me_lists_the_players_sessions_statistics_and_ratings(served: Served) -> None:
    answer = await get(served.base, "/api/me", ANN)
    assert answer.status == 200
    assert answer.headers["cache-control"] == "no-store"
    assert answer.headers["content-type"].startswith("application/json")
    me = answer.json
    assert [s["session_id"] for s in me["sessions"]] == ["s-ab-2", "s-ab-1"], "newest first; not carl's"
    history = (await served.archive.player_history(player_hash(ANN))).public()
    assert me["statistics"] == history["statistics"]
    assert me["ratings"] == history["ratings"] and set(me["ratings"]) == {"solo-whist"}
    first = me["sessions"][1]
    session = await served.archive.read_session("s-ab-1")
    assert session is not None
    assert first["room_id"] == "room-ab" and first["ruleset"] == "solo-whist" and first["seat"] == 0
    assert [s["name"] for s in first["seats"]] == ["ann", "bob", "expert bot", "basic bot"]
    assert [s["bot"] for s in first["seats"]] == [None, None, "expert", "basic"]
    assert first["balances"] == list(session.balances) and first["balance"] == session.balances[0]
    assert first["started_at"] == 1_000.0 and first["ended_at"] == 1_600.0
    assert [deal["points"] for deal in first["deals"]] == [deal.points[0] for deal in session.deals]
    assert me["sessions"][0]["seat"] == 2, "ann sat at seat 2 in the second session"
    # Each deal is one link from its record, and the record is the archive's.
    for deal in first["deals"]:
        assert deal["record"] == f"/api/deals/s-ab-1/{deal['number']}"
        linked = await get(served.base, deal["record"])
        assert linked.status == 200
        assert linked.json == {"session_id": "s-ab-1", "number": deal["number"],
                               "record": await served.archive.deal_record("s-ab-1", deal["number"])}
        assert replay(linked.json["record"]).finished


async def test_a_history_names_no_player_key_or_hash(served: Served) -> None:
    for key in (ANN, BOB, CARL):
        text = (await get(served.base, "/api/me", key)).text
        for secret in (ANN, BOB, CARL):
            assert secret not in text and player_hash(secret) not in text
    board = (await get(served.base, "/api/ratings/solo-whist")).text
    for secret in (ANN, BOB, CARL):
        assert player_hash(secret) not in board
    carl = (await get(served.base, "/api/me", CARL)).json
    assert [s["session_id"] for s in carl["sessions"]] == ["s-carl"]
    assert carl["ratings"] == (await served.archive.player_history(player_hash(CARL))).public()["ratings"]
    nobody = (await get(served.base, "/api/me", "k" * 32)).json
    assert nobody["sessions"] == [] and nobody["statistics"]["deals"] == 0 and nobody["ratings"] == {}


async def test_me_needs_a_well_formed_key(served: Served) -> None:
    for authorization in (None, "Bearer", "Bearer short", "Basic " + "a" * 20, "Bearer " + "é" * 20,
                          "Bearer " + "a" * 129):
        answer = await get(served.base, "/api/me", authorization=authorization)
        assert answer.status == 401, authorization
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert answer.headers["cache-control"] == "no-store"
        assert answer.json["error"] in ("unauthorized", "bad_key")
    limited = await get(served.base, "/api/me?limit=1", ANN)
    assert [s["session_id"] for s in limited.json["sessions"]] == ["s-ab-2"]
    assert (await get(served.base, "/api/me?limit=0", ANN)).status == 400


async def test_the_all_time_board(served: Served) -> None:
    answer = await get(served.base, "/api/ratings/solo-whist")
    assert answer.status == 200
    board = answer.json
    expected = await served.archive.leaderboard("solo-whist")
    assert board["ruleset"] == "solo-whist"
    assert board["entries"] == [{"rank": rank, **line.public()} for rank, line in enumerate(expected, 1)]
    assert {(e["kind"], e["name"]) for e in board["entries"]} == {
        ("player", "ann"), ("player", "bob"), ("bot", "expert"), ("bot", "basic")}
    ordinals = [e["ordinal"] for e in board["entries"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert len((await get(served.base, "/api/ratings/solo-whist?limit=2")).json["entries"]) == 2
    assert (await get(served.base, "/api/ratings/solo-whist?limit=x")).status == 400
    couleur = (await get(served.base, "/api/ratings/couleur")).json["entries"]
    assert couleur == [{"rank": rank, **line.public()}
                       for rank, line in enumerate(await served.archive.leaderboard("couleur"), 1)]
    unknown = await get(served.base, "/api/ratings/poker")
    assert unknown.status == 404 and unknown.json["error"] == "unknown_ruleset"


async def test_archived_records_deals_and_404s(served: Served) -> None:
    answer = await get(served.base, "/api/rooms/room-ab/records")
    assert answer.status == 200
    assert answer.json == {"room_id": "room-ab", "records": await served.archive.room_records("room-ab")}
    assert len(answer.json["records"]) == 6
    for path, code in (("/api/rooms/nowhere/records", "no_such_room"),
                       ("/api/deals/s-ab-1/6", "no_such_deal"), ("/api/deals/nothing/0", "no_such_deal"),
                       ("/api/deals/s-ab-1/x", "not_found"),
                       ("/api/rooms/a%2Fb/records", "not_found"), ("/api/else", "not_found")):
        missing = await get(served.base, path)
        assert missing.status == 404, path
        assert missing.json["error"] == code, path


async def test_without_an_archive_its_answers_are_503(tmp_path: Path) -> None:
    server, base = await serve(tmp_path, None)
    try:
        for path in ("/api/me", "/api/deals/s/0", "/api/ratings/solo-whist"):
            answer = await get(base, path, ANN)
            assert answer.status == 503, path
            assert answer.json["error"] == "archive_off" and "archive" in answer.json["message"]
        assert (await get(base, "/api/rooms/nowhere/records")).status == 404, "no archive: unknown is unknown"
    finally:
        await server.stop()


async def test_an_archive_that_does_not_answer_is_503_and_the_server_plays_on(
        tmp_path: Path, connect: Connect) -> None:
    down = ArchiveWriter(lambda: open_archive("postgresql://postgres@127.0.0.1:9/nothing"))
    server, base = await serve(tmp_path, down)
    try:
        for path in ("/api/me", "/api/deals/s/0", "/api/ratings/solo-whist", "/api/rooms/nowhere/records"):
            answer = await get(base, path, ANN)
            assert answer.status == 503, path
            assert answer.json["error"] == "archive_unavailable"
        assert (await get(base, "/health")).status == 200
        client = await connect("Still here", url=base.replace("http://", "ws://") + "/ws")
        assert (await client.create_room("solo-whist", seat=0))["room_id"]
    finally:
        await server.stop()


async def test_a_live_rooms_records_are_what_get_records_answers(live: LiveServer, connect: Connect) -> None:
    human = await connect("Solo")
    created = await human.create_room("solo-whist", seat=0, session={"deals": 3}, bot="random")
    room_id = created["room_id"]
    path = f"/api/rooms/{room_id}/records"
    before = await get(live.http, path)
    assert before.status == 200 and before.json == {"room_id": room_id, "records": []}
    await human.start()
    await human.play_deal(random_choice)
    await human.ready()
    await human.wait_for(lambda c: c.view is not None and c.view["phase"] != "end"
                         and c.room is not None and c.room["deal_number"] == 1)
    # The second deal is under way: only the first, ended, is answered.
    answer = await get(live.http, path)
    assert answer.status == 200 and answer.headers["cache-control"] == "no-cache"
    assert answer.json == await human.request("get_records")
    assert len(answer.json["records"]) == 1 and replay(answer.json["records"][0]).finished
    # A room this process no longer holds is read from the store (and not opened again by the read).
    room = live.server.tables.registry.held(room_id)
    assert room is not None
    del live.server.tables.registry.rooms[room_id]
    try:
        assert (await get(live.http, path)).json == answer.json
        assert live.server.tables.registry.held(room_id) is None
    finally:
        live.server.tables.registry.rooms[room_id] = room
