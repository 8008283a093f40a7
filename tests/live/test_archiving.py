"""Finished sessions leave Redis for the archive (server/live/archiving.py), over real websockets, the
real Redis store and real archives (an SQLite file, a throwaway PostgreSQL database): archived once by
the room's owner with the records `get_records` answered live and the seats credited to hashed player
keys, the room's keys expiring after the retention (nothing left), the records still answered from the
archive, play going on while the archive is down, two servers archiving a session once, abandoned rooms,
play again, bots-only sessions, and a finished room left unarchived by a dead process."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from server_helpers import random_choice

from server.archive import MIN_RATED_DEALS, Archive, ArchiveWriter, open_archive, player_hash
from server.client import ServerError, WhistClient
from server.coord import redis_coordination
from server.server import WhistServer
from server.settings import Limits
from server.store.keys import Keys
from server.store.memory import MemoryStore
from server.store.redis import RedisStore

POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"
NOBODY = "postgresql://postgres@127.0.0.1:1/none"  # a port nobody listens on: the archive is down
KEY_ANN = "ann-browser-key-0123456789"
DEADLINE = 60.0  # a bound for waits, never a measurement


async def until(condition: Callable[[], Awaitable[bool]], seconds: float = DEADLINE,
                what: str = "condition") -> None:
    """Poll `condition` until it holds; fail at the deadline."""
    deadline = asyncio.get_running_loop().time() + seconds
    while not await condition():
        assert asyncio.get_running_loop().time() < deadline, f"{what}: not within {seconds} s"
        await asyncio.sleep(0.05)


@pytest.fixture
async def postgres_database() -> AsyncIterator[Callable[[], Awaitable[str]]]:
    """Empty PostgreSQL databases on demand (their URLs), dropped afterwards."""
    created: list[str] = []

    async def admin(sql: str) -> None:
        connection = await asyncpg.connect(POSTGRES, timeout=10)
        try:
            await connection.execute(sql)
        finally:
            await connection.close()

    async def create() -> str:
        name = f"whist_test_{uuid.uuid4().hex[:12]}"
        await admin(f'CREATE DATABASE "{name}"')
        created.append(name)
        return POSTGRES.rsplit("/", 1)[0] + "/" + name

    yield create
    for name in created:
        await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Servers:
    """In-process servers on the test's Redis prefix, each with its own archive writer."""

    def __init__(self, redis_url: str, prefix: str) -> None:
        self.redis_url = redis_url
        self.prefix = prefix
        self.keys = Keys(prefix)
        self.started: list[WhistServer] = []
        self.redis = RedisStore(redis_url, prefix=prefix)  # to look at the keys

    async def start(self, archive: str | Callable[[], str], *, retention: float = 60.0,
                    abandon_after: float = 1800.0, coordinated: bool = False) -> tuple[WhistServer, str]:
        url = archive if callable(archive) else (lambda: archive)
        writer = ArchiveWriter(lambda: open_archive(url()), first_delay=0.05, max_delay=0.2, kind="test")
        name = f"p{len(self.started)}"
        coordination = redis_coordination(self.redis_url, name, prefix=self.prefix) if coordinated else None
        server = WhistServer(RedisStore(self.redis_url, prefix=self.prefix), bot_delay=0.0,
                             limits=Limits(200.0, 400.0), archive=writer, retention=retention,
                             abandon_after=abandon_after, coordination=coordination, replica_id=name)
        host, port = await server.start("127.0.0.1", 0)
        self.started.append(server)
        return server, f"ws://{host}:{port}/ws"

    async def room_keys(self, room_id: str) -> list[str]:
        """Every key under the prefix that names the room."""
        return sorted([key async for key in self.redis.redis.scan_iter(match=f"{self.prefix}*{room_id}*")])

    async def references(self, room_id: str) -> list[str]:
        """The shared keys that still name the room: the rooms set, the lobby, the owner book."""
        found = []
        if await self.redis.redis.sismember(self.keys.rooms, room_id):
            found.append("rooms")
        if await self.redis.redis.hexists(self.keys.lobby, room_id):
            found.append("lobby")
        if await self.redis.redis.hexists(self.keys.room_owners, room_id):
            found.append("owners")
        return found

    async def everything(self) -> str:
        """Every value stored under the prefix, as text (to look for what must never be there)."""
        texts = []
        async for key in self.redis.redis.scan_iter(match=f"{self.prefix}*"):
            kind = await self.redis.redis.type(key)
            if kind == "hash":
                texts.append(repr(await self.redis.redis.hgetall(key)))
            elif kind == "list":
                texts.append(repr(await self.redis.redis.lrange(key, 0, -1)))
            elif kind == "string":
                texts.append(repr(await self.redis.redis.get(key)))
            elif kind == "zset":
                texts.append(repr(await self.redis.redis.zrange(key, 0, -1)))
            elif kind == "set":
                texts.append(repr(await self.redis.redis.smembers(key)))
            texts.append(key)
        return "\n".join(texts)

    async def stop(self) -> None:
        for server in self.started:
            await server.stop()
        await self.redis.close()


@pytest.fixture
async def servers(redis_url: str, redis_cleanup: str) -> AsyncIterator[Servers]:
    made = Servers(redis_url, redis_cleanup)
    yield made
    await made.stop()


@pytest.fixture
async def clients() -> AsyncIterator[Callable[..., Awaitable[WhistClient]]]:
    opened: list[WhistClient] = []

    async def connect(url: str, name: str = "Player", player_key: str | None = None) -> WhistClient:
        client = await WhistClient.connect(url, name=name, player_key=player_key)
        opened.append(client)
        return client

    yield connect
    for client in opened:
        await client.close()


async def play_session(client: WhistClient, deals: int = 1, **options: Any) -> str:
    """A room with the client on seat 0 and bots elsewhere, played to the end of its session: `deals`
    deals (the whist target, 5 points by default, is one a side can reach in one deal: 11 tricks)."""
    options.setdefault("house_rules", {"target": 7 * deals + 1})
    await client.create_room("whist", seat=0, bot="random", session={"deals": deals}, **options)
    await client.start()
    assert client.room_id is not None
    for _ in range(deals):
        await client.play_deal(random_choice, timeout=DEADLINE)
        room = client.room
        assert room is not None
        if room["session_over"]:
            break
        seen = int(room["deal_number"])
        await client.ready()
        await client.wait_for(lambda c, seen=seen: c.room is not None and (  # type: ignore[misc]
            c.room["deal_number"] > seen or bool(c.room["session_over"])), DEADLINE)
    await client.wait_for(lambda c: c.room is not None and c.room["status"] == "over", DEADLINE)
    return client.room_id


async def archived_ids(archive: Archive, room_id: str) -> list[str]:
    return [session.session_id for session in await archive.room_sessions(room_id)]


async def test_a_finished_session_is_archived_once_credited_and_its_keys_expire_after_the_retention(
        servers: Servers, clients: Callable[..., Awaitable[WhistClient]], tmp_path: Path) -> None:
    archive_url = f"sqlite:///{tmp_path / 'archive.sqlite3'}"
    server, url = await servers.start(archive_url, retention=1.0)
    writer = server.archive
    assert writer is not None
    ann = await clients(url, "Ann", player_key=KEY_ANN)
    room_id = await play_session(ann, deals=2)
    live_records = await ann.records()
    assert len(live_records) == 2

    await until(lambda: asyncio.sleep(0, writer.stats().written == 1), what="archived")
    archive = await writer.archive()
    (session,) = await archive.room_sessions(room_id)
    assert session.session_id == room_id and session.complete
    assert session.records() == live_records, "every deal record as get_records answered it live"
    assert session.seats[0].player == player_hash(KEY_ANN) and session.seats[0].name == "Ann"
    assert [seat.kind for seat in session.seats[1:]] == ["bot", "bot", "bot"]
    assert KEY_ANN not in await servers.everything(), "the raw player key is never stored"

    # The room's keys carry the retention, and the room left the shared indexes at once.
    keys = await servers.room_keys(room_id)
    assert servers.keys.room(room_id) in keys and servers.keys.room_players(room_id) in keys
    ttls = [await servers.redis.redis.pttl(key) for key in keys]
    assert all(0 < ttl <= 1000 for ttl in ttls), dict(zip(keys, ttls, strict=True))
    assert await servers.references(room_id) == []

    # Anything more that happens in the finished room submits nothing again.
    await ann.say(phrase="well_played")
    await ann.records()
    await asyncio.wait_for(writer.drain(), DEADLINE)
    assert (writer.stats().written, writer.stats().already) == (1, 0)
    page = server.scrape().decode()
    assert 'whist_archive_writes_total{result="written"} 1.0' in page
    assert 'whist_archive_writes_total{result="already"} 0.0' in page
    assert "whist_archive_write_seconds_count 1.0" in page and "whist_archive_pending 0.0" in page

    async def gone() -> bool:
        return await servers.room_keys(room_id) == []

    reader = await clients(url, "Reader")
    assert await reader.records(room_id) == live_records, "by id, while the store still has it"
    await until(gone, what="the room's keys expired")
    assert await servers.references(room_id) == []
    assert await ann.records() == live_records, "the connection still in the room reads its own copy"

    # Once the store has let it go (and the last connection has left), the archive answers: by id, and
    # to a spectator coming late.
    await ann.close()
    await until(lambda: asyncio.sleep(0, room_id not in server.tables.rooms), what="out of memory")
    assert await reader.records(room_id) == live_records
    watched = await reader.watch(room_id)
    assert watched["archived"] is True and watched["records"] == live_records
    assert await servers.room_keys(room_id) == [], "reading the archive brings nothing back into Redis"
    with pytest.raises(ServerError) as unknown:
        await reader.records("no-such-room")
    assert unknown.value.code == "no_such_room"


async def test_a_session_left_by_a_dead_process_is_archived_by_the_next_one_to_load_it(
        servers: Servers, clients: Callable[..., Awaitable[WhistClient]], tmp_path: Path) -> None:
    first, url = await servers.start(NOBODY, coordinated=True)  # its archive never answers
    ann = await clients(url, "Ann", player_key=KEY_ANN)
    room_id = await play_session(ann)
    assert first.archive is not None
    await until(lambda: asyncio.sleep(0, first.archive.stats().failures >= 1),  # type: ignore[union-attr]
                what="a failed write")
    await ann.close()
    await first.stop()  # dies with the session still in its queue
    servers.started.remove(first)
    assert await servers.redis.archived(room_id) is None and servers.keys.room(room_id) in \
        await servers.room_keys(room_id)

    # The next process loads the stored rooms (and takes the room's lease to submit it).
    second, _ = await servers.start(f"sqlite:///{tmp_path / 'archive.sqlite3'}", coordinated=True)
    writer = second.archive
    assert writer is not None
    await until(lambda: asyncio.sleep(0, writer.stats().written == 1), what="archived by the next process")
    archive = await writer.archive()
    assert await archived_ids(archive, room_id) == [room_id]
    (session,) = await archive.room_sessions(room_id)
    assert session.seats[0].player == player_hash(KEY_ANN), "the credits are in the store, for anyone"
    assert await servers.redis.archived(room_id) == 0

    async def lease_given_up() -> bool:
        return not await servers.redis.redis.exists(servers.keys.room_owner(room_id))

    await until(lease_given_up, what="the lease taken to submit it, given up once archived")


async def test_while_the_archive_is_down_play_goes_on_and_health_says_degraded_then_it_is_written_once(
        servers: Servers, clients: Callable[..., Awaitable[WhistClient]],
        postgres_database: Callable[[], Awaitable[str]]) -> None:
    where = [NOBODY]
    server, url = await servers.start(lambda: where[0])
    writer = server.archive
    assert writer is not None
    ann = await clients(url, "Ann", player_key=KEY_ANN)
    room_id = await play_session(ann)
    await until(lambda: asyncio.sleep(0, writer.stats().failures >= 2), what="failed writes")
    health = await server.health()
    assert health["status"] == "degraded"
    block = health["archive"]
    assert block["healthy"] is False and block["pending"] == 1 and block["written"] == 0
    assert block["failures"] >= 2 and block["last_error"] and block["kind"] == "test"
    assert await servers.redis.archived(room_id) is None, "kept live until it is archived"
    page = server.scrape().decode()
    assert "whist_archive_pending 1.0" in page
    assert 'whist_archive_writes_total{result="failed"} 0.0' not in page
    assert 'whist_archive_writes_total{result="written"} 0.0' in page

    bob = await clients(url, "Bob")  # play goes on
    other = await play_session(bob)
    assert other != room_id

    where[0] = await postgres_database()  # the archive answers again
    await until(lambda: asyncio.sleep(0, writer.stats().pending == 0), what="written once it answers")
    stats = writer.stats()
    assert (stats.written, stats.already, stats.healthy) == (2, 0, True)
    health = await server.health()
    assert health["status"] == "ok" and health["archive"]["healthy"] and health["archive"]["pending"] == 0
    archive = await writer.archive()
    assert await archived_ids(archive, room_id) == [room_id] and await archived_ids(archive, other) == [other]


async def test_two_servers_on_one_redis_archive_a_session_once(
        servers: Servers, clients: Callable[..., Awaitable[WhistClient]],
        postgres_database: Callable[[], Awaitable[str]]) -> None:
    database = await postgres_database()
    first, url_a = await servers.start(database, coordinated=True)
    second, url_b = await servers.start(database, coordinated=True)
    ann = await clients(url_a, "Ann", player_key=KEY_ANN)
    await ann.create_room("whist", seat=0, bot="random", session={"deals": 1})
    assert ann.room_id is not None
    room_id = ann.room_id
    watcher = await clients(url_b, "Watcher")
    await watcher.watch(room_id)  # the second server holds the room too, and hears its end
    await ann.start()
    await ann.play_deal(random_choice, timeout=DEADLINE)
    await watcher.wait_for(lambda c: c.room is not None and c.room["status"] == "over", DEADLINE)
    writers = [server.archive for server in (first, second)]
    assert writers[0] is not None and writers[1] is not None

    async def archived() -> bool:
        return sum(writer.stats().written for writer in writers if writer is not None) >= 1

    await until(archived, what="archived")
    for writer in writers:
        assert writer is not None
        await asyncio.wait_for(writer.drain(), DEADLINE)
    assert sum(w.stats().written for w in writers if w) == 1
    assert sum(w.stats().already for w in writers if w) == 0
    archive = await writers[0].archive()
    assert await archived_ids(archive, room_id) == [room_id]


async def test_a_room_nobody_is_left_in_is_ended_and_archived_after_the_abandonment_period(
        servers: Servers, clients: Callable[..., Awaitable[WhistClient]], tmp_path: Path) -> None:
    server, url = await servers.start(f"sqlite:///{tmp_path / 'archive.sqlite3'}", abandon_after=0.5)
    writer = server.archive
    assert writer is not None
    ann = await clients(url, "Ann", player_key=KEY_ANN)
    await ann.create_room("whist", seat=0, bot="random", session={"deals": 3}, grace_seconds=600)
    await ann.start()
    room_id = ann.room_id
    assert room_id is not None
    await ann.wait_for(lambda c: c.view is not None)
    await ann.close()  # nobody comes back: her seat waits out its long grace period
    await until(lambda: asyncio.sleep(0, writer.stats().written == 1), what="abandoned and archived")
    archive = await writer.archive()
    (session,) = await archive.room_sessions(room_id)
    assert not session.complete, "archived as it stood, never rated"
    stored = await servers.redis.load(room_id)
    assert stored is not None and stored.state["ended"] is True
    log = await servers.redis.read_log(room_id)
    assert log[-1] == {"t": "ended", "balances": log[-1]["balances"], "reason": "abandoned"}
    # Nobody is in it: once archived it leaves the process's memory too (its lease with it).
    await until(lambda: asyncio.sleep(0, server.tables.registry.held(room_id) is None),
                what="the archived room dropped from memory")


async def test_a_room_played_again_archives_each_session_under_its_own_id(
        servers: Servers, clients: Callable[..., Awaitable[WhistClient]], tmp_path: Path) -> None:
    server, url = await servers.start(f"sqlite:///{tmp_path / 'archive.sqlite3'}", retention=120.0)
    writer = server.archive
    assert writer is not None
    ann = await clients(url, "Ann", player_key=KEY_ANN)
    room_id = await play_session(ann)
    first_records = await ann.records()
    await until(lambda: asyncio.sleep(0, writer.stats().written == 1), what="the first session archived")
    assert await servers.redis.redis.pttl(servers.keys.room(room_id)) > 0

    assert (await ann.play_again())["started"]
    await until(lambda: _persisted(servers, room_id), what="the expiry taken away")
    assert "rooms" in await servers.references(room_id), "back in the rooms index"
    await ann.play_deal(random_choice, timeout=DEADLINE)
    await ann.wait_for(lambda c: c.room is not None and c.room["status"] == "over", DEADLINE)
    second_records = await ann.records()
    await until(lambda: asyncio.sleep(0, writer.stats().written == 2), what="the second session archived")
    archive = await writer.archive()
    sessions = await archive.room_sessions(room_id)
    assert [s.session_id for s in sessions] == [room_id, f"{room_id}.2"]
    assert sessions[0].records() == first_records and sessions[1].records() == second_records
    assert await archive.room_records(room_id) == first_records + second_records
    assert await servers.redis.archived(room_id) == 1


async def _persisted(servers: Servers, room_id: str) -> bool:
    ttls = [await servers.redis.redis.pttl(key) for key in await servers.room_keys(room_id)]
    return bool(ttls) and all(ttl == -1 for ttl in ttls)


async def test_a_bots_only_session_is_archived_and_moves_no_rating(
        servers: Servers, clients: Callable[..., Awaitable[WhistClient]], tmp_path: Path) -> None:
    server, url = await servers.start(f"sqlite:///{tmp_path / 'archive.sqlite3'}")
    writer = server.archive
    assert writer is not None
    host = await clients(url, "Host", player_key=KEY_ANN)
    await host.create_room("solo-whist", seat=None, bot="random", session={"deals": 10})
    await host.start()
    await host.wait_for(lambda c: c.room is not None and c.room["status"] == "over", DEADLINE)
    await until(lambda: asyncio.sleep(0, writer.stats().written == 1), what="archived")
    archive = await writer.archive()
    assert host.room_id is not None
    (session,) = await archive.room_sessions(host.room_id)
    assert [seat.kind for seat in session.seats] == ["bot"] * 4
    assert session.complete and session.played_deals >= MIN_RATED_DEALS, "long enough to be rated"
    assert await archive.rating("solo-whist", "bot", "random") is None, "bots-only: no rating moves"
    assert await archive.leaderboard("solo-whist") == []


class MemoryServed:
    """A server on the embedded memory store with an SQLite archive and a short retention."""

    def __init__(self, tmp_path: Path, retention: float = 0.3) -> None:
        archive_url = f"sqlite:///{tmp_path / 'archive.sqlite3'}"
        self.writer = ArchiveWriter(lambda: open_archive(archive_url), first_delay=0.05, kind="sqlite")
        self.store = MemoryStore()
        self.server = WhistServer(self.store, bot_delay=0.0, limits=Limits(200.0, 400.0), archive=self.writer,
                                  retention=retention)
        self.url = ""

    async def __aenter__(self) -> MemoryServed:
        host, port = await self.server.start("127.0.0.1", 0)
        self.url = f"ws://{host}:{port}/ws"
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.server.stop()

    async def archived(self) -> None:
        """Until the writer has written one session."""
        await until(lambda: asyncio.sleep(0, self.writer.stats().written == 1), what="archived")

    async def let_go(self, room_id: str) -> None:
        """Until the store has let the room go (its retention ran out)."""
        async def gone() -> bool:
            return await self.store.load(room_id) is None

        await until(gone, what="the room let go")


async def test_the_memory_store_lets_an_archived_room_go_after_the_retention_too(
        clients: Callable[..., Awaitable[WhistClient]], tmp_path: Path) -> None:
    async with MemoryServed(tmp_path) as served:
        store = served.store
        ann = await clients(served.url, "Ann", player_key=KEY_ANN)
        room_id = await play_session(ann)
        live_records = await ann.records()
        await served.archived()
        assert await store.archived(room_id) == 0 and room_id not in await store.room_ids()
        await ann.close()
        await served.let_go(room_id)
        assert await store.seat_credits(room_id) == {} and await store.read_log(room_id) == []
        reader = await clients(served.url, "Reader")
        await until(lambda: asyncio.sleep(0, room_id not in served.server.tables.rooms), what="out of memory")
        assert await reader.records(room_id) == live_records, "from the archive"


async def test_a_room_still_held_here_once_its_retention_ran_out_is_answered_from_the_archive(
        clients: Callable[..., Awaitable[WhistClient]], tmp_path: Path) -> None:
    """Ann's connection keeps the finished room in this process's memory after the store has let it go
    (as a page being reloaded does until the server hears its old socket close). A new connection
    resuming her seat is told the room is gone (not a conflict to retry for ever), and watching it
    answers the archived records, as for a room nobody held; a chat line Ann says there is refused (no
    key is written that would outlive the room)."""
    async with MemoryServed(tmp_path) as served:
        store, rooms = served.store, served.server.tables.rooms
        ann = await clients(served.url, "Ann", player_key=KEY_ANN)
        room_id = await play_session(ann)
        live_records = await ann.records()
        assert ann.token is not None
        await served.archived()
        await served.let_go(room_id)
        assert room_id in rooms, "still held: Ann's connection is in it"

        again = await clients(served.url, "Ann", player_key=KEY_ANN)
        with pytest.raises(ServerError) as refused:
            await again.resume(room_id, ann.token)
        assert refused.value.code == "no_such_room"
        assert room_id not in rooms, "no longer served here"
        watched = await again.watch(room_id)
        assert watched["archived"] is True and watched["records"] == live_records
        assert await ann.records() == live_records, "the connection still in the room reads its own copy"
        with pytest.raises(ServerError) as unsent:
            await ann.say(phrase="well_played")
        assert unsent.value.code == "no_such_room", "a line nobody can read is not said to be sent"
        assert await store.load(room_id) is None, "nothing written back to the store"
        assert await store.chat_lines(room_id) == [] and await store.seat_credits(room_id) == {}
