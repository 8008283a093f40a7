"""Room owner leases (server/coord/leases.py), on Redis and on the memory twins."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from pathlib import Path

import pytest
from coord_helpers import MakeCoord, eventually
from redis.asyncio import Redis

from server.cluster.processes import PrivateRedis
from server.coord import redis_coordination
from server.coord.leases import DEFAULT_TTL, MemoryLeases, RedisLeases
from server.coord.scripts import BATCH


async def test_only_one_process_holds_a_room(make_coord: MakeCoord) -> None:
    a, b = make_coord("A"), make_coord("B")
    assert await a.leases.acquire("room1")
    assert not await b.leases.acquire("room1")
    assert await b.leases.owner("room1") == "A"
    assert a.leases.holds("room1") and a.leases.held == {"room1"}
    assert not b.leases.holds("room1") and b.leases.held == frozenset()
    assert await a.leases.acquire("room1"), "taking a lease one already holds succeeds"
    assert await b.leases.acquire("room2"), "other rooms are free"


async def test_only_the_owner_can_release(make_coord: MakeCoord) -> None:
    a, b = make_coord("A"), make_coord("B")
    assert await a.leases.acquire("room1")
    assert not await b.leases.release("room1")
    assert await a.leases.owner("room1") == "A"
    assert await a.leases.release("room1")
    assert await a.leases.owner("room1") is None
    assert await b.leases.acquire("room1")


async def test_renewal_keeps_a_lease_past_its_ttl(make_coord: MakeCoord) -> None:
    a, b = make_coord("A"), make_coord("B")
    assert await a.leases.acquire("room1")
    b.leases.want("room1")
    a.leases.start()
    b.leases.start()
    started = time.monotonic()
    # More than a ttl passes; the owner renews every ttl / 3, so the lease never lapses.
    while time.monotonic() - started < a.leases.ttl * 1.5:
        assert await b.leases.owner("room1") == "A"
        await asyncio.sleep(0.1)
    assert b.leases.held == frozenset()


async def test_a_dead_owners_room_is_taken_by_a_process_that_wants_it(make_coord: MakeCoord) -> None:
    a, b = make_coord("A", lease_ttl=1.0), make_coord("B", lease_ttl=1.0)
    taken: list[str] = []
    assert await a.leases.acquire("room1")
    b.leases.want("room1")
    b.leases.start(on_acquired=taken.append)
    # A "dies": it stops renewing without releasing anything.
    await a.leases.stop()
    await eventually(lambda: taken == ["room1"], what="B takes the room")
    assert await b.leases.owner("room1") == "B"
    assert b.leases.holds("room1")


async def test_an_owner_that_lost_its_lease_is_told(make_coord: MakeCoord) -> None:
    a, b = make_coord("A", lease_ttl=0.5), make_coord("B", lease_ttl=5.0)
    lost: list[str] = []
    a.leases.on_lost = lost.append
    assert await a.leases.acquire("room1")
    await eventually(lambda: b.leases.acquire("room1"), what="the lease expires and B takes it")
    await a.leases.tick()  # A's next renewal finds the lease names B
    assert lost == ["room1"]
    assert not a.leases.holds("room1")
    assert await a.leases.owner("room1") == "B"


class _UnreachableLeases(MemoryLeases):
    """Leases whose store stops answering after the first acquire."""

    async def _renew(self, rooms: Iterable[str]) -> dict[str, bool]:
        raise ConnectionError("store unreachable")


async def test_a_lease_that_cannot_be_renewed_is_lost_after_its_ttl() -> None:
    leases = _UnreachableLeases("A", ttl=0.3)
    lost: list[str] = []
    leases.on_lost = lost.append
    assert await leases.acquire("room1")
    with pytest.raises(ConnectionError):
        await leases.tick()
    await eventually(lambda: not leases.holds("room1"), what="the lease runs out locally")
    with pytest.raises(ConnectionError):
        await leases.tick()
    assert lost == ["room1"]
    assert leases.held == frozenset()


async def test_close_releases_every_held_lease(make_coord: MakeCoord) -> None:
    a, b = make_coord("A"), make_coord("B")
    for room in ("room1", "room2"):
        assert await a.leases.acquire(room)
    await a.leases.close()
    assert await b.leases.owner("room1") is None and await b.leases.owner("room2") is None
    assert await b.leases.acquire("room1")


async def test_defaults_move_a_dead_owners_rooms_within_five_seconds(make_coord: MakeCoord) -> None:
    a = make_coord("A")
    # Expiry (ttl) plus at most one claiming pass (ttl / 3) of the process that wants the room.
    assert a.leases.ttl == DEFAULT_TTL and a.leases.ttl + a.leases.interval <= 5.0
    assert await a.leases.acquire("room1")
    if isinstance(a.leases, RedisLeases):
        remaining = await a.leases.redis.pttl(a.leases.keys.room_owner("room1"))
        assert 0 < remaining <= DEFAULT_TTL * 1000


def test_lease_keys_carry_the_rooms_hash_tag() -> None:
    from server.store.keys import Keys

    keys = Keys("whist:")
    for key in (keys.room_owner("ab12"), keys.room_changes("ab12"), keys.room_presence("ab12")):
        assert key.startswith("whist:{room:ab12}:")


async def test_one_pass_claims_every_free_wanted_room_and_no_held_one(make_coord: MakeCoord) -> None:
    a, b = make_coord("A"), make_coord("B")
    taken: list[str] = []
    b.leases.on_acquired = taken.append
    assert await a.leases.acquire("room1")
    for room in ("room1", "room2", "room3"):
        b.leases.want(room)
    await b.leases.tick()
    assert sorted(taken) == ["room2", "room3"]
    assert b.leases.held == {"room2", "room3"}
    assert await b.leases.owner("room1") == "A"
    await b.leases.tick()
    assert sorted(taken) == ["room2", "room3"], "rooms already held are renewed, not taken again"


async def test_the_passes_go_on_after_redis_lost_its_script_cache(tmp_path: Path) -> None:
    # The passes run their scripts by SHA (server/coord/scripts.py); a Redis of its own, since a
    # SCRIPT FLUSH on the shared one would touch everyone's scripts.
    server = PrivateRedis(tmp_path / "redis")
    server.start()
    a, b = redis_coordination(server.url, "A"), redis_coordination(server.url, "B")
    client = Redis.from_url(server.url)
    try:
        assert await a.leases.acquire("room1")
        b.leases.want("room2")
        await a.presence.connect("room1", 0)
        await a.leases.tick()
        await b.leases.tick()
        assert a.leases.held == {"room1"} and b.leases.held == {"room2"}
        await client.script_flush()
        a.leases.want("room3")
        await a.leases.tick()  # a renewal and a claim, both answered NOSCRIPT first
        assert a.leases.held == {"room1", "room3"}
        await b.leases.tick()
        assert b.leases.held == {"room2"}
        assert await b.leases.owner("room3") == "A"
        await client.script_flush()
        await a.presence.tick()
        assert await b.presence.seats("room1") == {0: frozenset({"A"})}
    finally:
        await client.aclose()
        await a.close()
        await b.close()
        server.stop()


async def test_a_pass_claims_renews_and_loses_leases_over_more_rooms_than_one_script_call_takes(
        make_coord: MakeCoord) -> None:
    # The passes run one script call per BATCH rooms: every room of every batch gets its own answer.
    a, b = make_coord("A"), make_coord("B")
    rooms = [f"many{index}" for index in range(2 * BATCH + 3)]
    for room in rooms:
        a.leases.want(room)
    stolen = rooms[BATCH]  # in the second batch
    assert await b.leases.acquire(stolen)
    lost: list[str] = []
    a.leases.on_lost = lost.append
    await a.leases.tick()  # the claims, in three calls
    assert a.leases.held == frozenset(rooms) - {stolen}
    # Another process takes two of A's leases behind its back (as after a lapse): rooms of the first
    # and the last batch.
    for room in (rooms[0], rooms[-1]):
        await hand_lease_to(a.leases, room, "B")
    await a.leases.tick()  # the renewals, in three calls
    assert sorted(lost) == sorted([rooms[0], rooms[-1]])
    assert a.leases.held == frozenset(rooms) - {stolen, rooms[0], rooms[-1]}
    assert [await a.leases.owner(room) for room in rooms[1:-1] if room != stolen] == ["A"] * (2 * BATCH)


async def hand_lease_to(leases: object, room: str, process_id: str) -> None:
    """Write another owner into a lease directly in its backend."""
    if isinstance(leases, RedisLeases):
        await leases.redis.set(leases.keys.room_owner(room), process_id, px=60_000)
    else:
        assert isinstance(leases, MemoryLeases)
        leases.table.leases[room] = (process_id, time.monotonic() + 60)
