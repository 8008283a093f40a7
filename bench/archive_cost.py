"""What a finished session costs: the Redis memory it holds once archived, before and after the
retention (its keys, and their bytes by MEMORY USAGE, on a private redis-server), and the archive
write per session on SQLite and PostgreSQL (the median of several writes, each a new session).

    python -m bench.archive_cost --sessions 5 --deals 4 [--postgres URL] [--write docs/benchmarks.md]

The sessions are bot-only rooms whose creator sat, said one chat line, and left after the start (so
the room has every kind of key: state, log, credited players, chat), played in process by
`server.live.Tables` on the Redis store with the archive writer on SQLite and a retention of
`--retention` seconds. Prints one JSON line; `--write` replaces the "## Archive cost" section.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.helpers import CountingPeer, host_uptime, write_section
from server.cluster.processes import PrivateRedis
from server.store.keys import Keys

TITLE = "## Archive cost"


async def room_usage(redis: Any, prefix: str, room_id: str) -> tuple[int, int]:
    """(keys, bytes by MEMORY USAGE) of every key under `prefix` that names the room."""
    keys = [key async for key in redis.scan_iter(match=f"{prefix}*{room_id}*")]
    used = 0
    for key in keys:
        used += int(await redis.memory_usage(key, samples=0) or 0)
    return len(keys), used


async def live_side(url: str, sessions: int, deals: int, retention: float, archive_url: str,
                    prefix: str = "whist:") -> tuple[dict[str, Any], list[Any]]:
    """Play and archive `sessions` sessions on the Redis at `url` under `prefix`; their Redis keys and
    bytes once archived and after the retention, and the tables (for the write benchmark)."""
    from redis.asyncio import Redis

    from server.archive import ArchiveWriter, open_archive
    from server.live import Tables
    from server.live.archiving import ArchivePolicy
    from server.store.redis import RedisStore

    watcher = Redis.from_url(url, decode_responses=True)
    store = RedisStore(url, prefix=prefix)
    writer = ArchiveWriter(lambda: open_archive(archive_url), kind="sqlite")
    writer.start()
    tables = Tables(store, bot_delay=0.0, archive=writer, policy=ArchivePolicy(retention=retention))
    try:
        return await _measure(tables, writer, watcher, prefix, sessions, deals, retention)
    finally:
        await tables.close()
        await writer.stop()
        await store.close()
        await watcher.aclose()


async def _measure(tables: Any, writer: Any, watcher: Any, prefix: str, sessions: int, deals: int,
                   retention: float) -> tuple[dict[str, Any], list[Any]]:
    from server.archive import player_hash
    from server.live import NewRoom, SessionSpan

    await tables.join_cluster()
    rooms, held = [], []
    for number in range(sessions):
        peer = CountingPeer()
        tables.identify(peer, player_hash(f"bench-player-key-{number:04d}"))
        answer = await tables.create_room(peer, NewRoom(ruleset="solo-whist", seat=0, bot="random",
                                                        session=SessionSpan(deals)))
        await tables.say(peer, None, "good_luck")
        await tables.start(peer)
        await tables.leave(peer)  # a bot plays the seat; the credit stays with the room
        rooms.append(str(answer["room_id"]))
        held.append(tables.registry.held(str(answer["room_id"])))
    deadline = time.monotonic() + 600
    while writer.stats().written + writer.stats().already < sessions:
        assert time.monotonic() < deadline, "the sessions were not archived in time"
        await asyncio.sleep(0.05)
    archived = [await room_usage(watcher, prefix, room_id) for room_id in rooms]
    ttls = [await watcher.pttl(Keys(prefix).room(room_id)) for room_id in rooms]
    tables_played = [room.table for room in held if room is not None]
    # After the retention: Redis expires the keys (read to see them go, as any reader would).
    while await watcher.exists(*(Keys(prefix).room(room_id) for room_id in rooms)):
        assert time.monotonic() < deadline + 60, "the keys did not expire"
        await asyncio.sleep(0.1)
    after = [await room_usage(watcher, prefix, room_id) for room_id in rooms]
    indexed = sum([await watcher.sismember(f"{prefix}rooms", room_id) for room_id in rooms])
    owners = sum([await watcher.hexists(f"{prefix}room_owners", room_id) for room_id in rooms])
    return {
        "sessions": sessions, "deals_per_session": deals, "retention_s": retention,
        "archived_keys_per_session": round(statistics.median(keys for keys, _ in archived)),
        "archived_bytes_per_session": round(statistics.median(used for _, used in archived)),
        "archived_ttl_ok": all(0 < ttl <= retention * 1000 for ttl in ttls),
        "after_keys_per_session": max(keys for keys, _ in after),
        "after_bytes_per_session": max(used for _, used in after),
        "after_in_rooms_set_or_owner_book": indexed + owners,
    }, tables_played


async def write_cost(archive_url: str, tables: list[Any], writes: int) -> dict[str, Any]:
    """The median time of `writes` archive writes of new sessions (each table's session, renamed)."""
    from server.archive import open_archive
    from server.archive.from_table import archived_session
    from server.archive.ratings import is_rated
    from server.table.state import Seat

    archive = await open_archive(archive_url)
    rated = 0
    seconds = []
    try:
        for number in range(writes):
            # Seat 0 back to a human with a player key: the write moves ratings, as a real one does.
            table = replace(tables[number % len(tables)], room_id=f"bench-{uuid.uuid4().hex[:10]}")
            table = table.with_seat(0, Seat("human", "bench", None))
            session = archived_session(table, {0: f"player-{number % 3}"}, time.time())
            rated += is_rated(session)
            started = time.perf_counter()
            assert await archive.write_session(session)
            seconds.append(time.perf_counter() - started)
    finally:
        await archive.close()
    deals = len(archived_session(tables[0], {}, 0.0).deals)
    return {"writes": writes, "rated": rated, "deals_per_session": deals,
            "median_ms": round(statistics.median(seconds) * 1000, 2),
            "max_ms": round(max(seconds) * 1000, 2)}


async def postgres_cost(admin_url: str, tables: list[Any], writes: int) -> dict[str, Any]:
    """`write_cost` on a throwaway database of the PostgreSQL at `admin_url` (dropped afterwards)."""
    import asyncpg

    name = f"whist_bench_{uuid.uuid4().hex[:10]}"
    connection = await asyncpg.connect(admin_url, timeout=10)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    try:
        return await write_cost(admin_url.rsplit("/", 1)[0] + "/" + name, tables, writes)
    finally:
        connection = await asyncpg.connect(admin_url, timeout=10)
        try:
            await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await connection.close()


def markdown(result: dict[str, Any], command: str, uptime: str) -> str:
    """The section of docs/benchmarks.md."""
    live, sqlite, postgres = result["redis"], result["sqlite"], result["postgresql"]
    return "\n".join([
        TITLE, "",
        f"`{command}` ({uptime}). Bot-only solo-whist sessions of {live['deals_per_session']} deals, each "
        "room with a credited seat and a chat line, archived by the live server (server/live/archiving.py) "
        "on a private redis-server; MEMORY USAGE of every key naming the room.", "",
        "| | keys per session | bytes per session |", "| --- | --- | --- |",
        f"| archived, during the retention | {live['archived_keys_per_session']} | "
        f"{live['archived_bytes_per_session']} |",
        f"| after the retention ({live['retention_s']:g} s here) | {live['after_keys_per_session']} | "
        f"{live['after_bytes_per_session']} |", "",
        f"Rooms still in the `rooms` set or the owner book after the retention: "
        f"{live['after_in_rooms_set_or_owner_book']} (of {live['sessions']}).", "",
        "Archive write per session (the session, its seats, its deals and the ratings in one transaction; "
        "a new session each time, median of several):", "",
        "| archive | writes (rated) | deals per session | median | max |", "| --- | --- | --- | --- | --- |",
        f"| SQLite (aiosqlite, WAL) | {sqlite['writes']} ({sqlite['rated']}) | "
        f"{sqlite['deals_per_session']} | {sqlite['median_ms']} ms | {sqlite['max_ms']} ms |",
        f"| PostgreSQL (asyncpg, local) | {postgres['writes']} ({postgres['rated']}) | "
        f"{postgres['deals_per_session']} | {postgres['median_ms']} ms | {postgres['max_ms']} ms |", "",
        "A rated write also reads and writes the ratings of the table's entities. The host has 2 cores "
        "shared with other work (the load average above): the write figures move by several "
        "milliseconds from one run to the next; the Redis figures do not.", "",
    ])


def main() -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--retention", type=float, default=2.0,
                        help="seconds (the server's default is a day)")
    parser.add_argument("--writes", type=int, default=15, help="archive writes timed per adapter")
    parser.add_argument("--postgres", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="a PostgreSQL whose user may create databases (a throwaway one is used)")
    parser.add_argument("--write", type=Path, default=None, metavar="PATH", help="docs/benchmarks.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        redis = PrivateRedis(Path(directory) / "redis")
        redis.start()
        try:
            archive_url = f"sqlite:///{Path(directory) / 'archive.sqlite3'}"
            live, tables = asyncio.run(live_side(redis.url, args.sessions, args.deals, args.retention,
                                                 archive_url))
        finally:
            redis.stop()
        sqlite_url = f"sqlite:///{Path(directory) / 'writes.sqlite3'}"
        sqlite = asyncio.run(write_cost(sqlite_url, tables, args.writes))
    postgres = asyncio.run(postgres_cost(args.postgres, tables, args.writes))
    result = {"redis": live, "sqlite": sqlite, "postgresql": postgres}
    print(json.dumps(result))
    if args.write is not None:
        command = "python -m bench.archive_cost " + " ".join(sys.argv[1:])
        write_section(args.write, markdown(result, command, host_uptime()), TITLE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
