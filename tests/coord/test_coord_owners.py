"""The owner book (`server/coord/owners.py`), on Redis and on the in-memory twins: the latest owner of
each unfinished room, and the rooms whose latest owner is not alive (orphans)."""

from __future__ import annotations

from coord_helpers import MakeCoord


async def test_the_book_names_each_rooms_latest_owner_until_the_room_is_forgotten(
    make_coord: MakeCoord,
) -> None:
    first, second = make_coord("p1"), make_coord("p2")
    await first.owners.record("room1")
    await first.owners.record("room2")
    await second.owners.record("room2")  # taken over: the newest owner wins
    assert await first.owners.book() == {"room1": "p1", "room2": "p2"}
    await second.owners.forget("room1")  # ended (whoever saw it end)
    assert await second.owners.book() == {"room2": "p2"}


async def test_orphans_are_the_rooms_whose_latest_owner_is_not_alive(make_coord: MakeCoord) -> None:
    first, second = make_coord("p1"), make_coord("p2")
    for room in ("b", "a"):
        await first.owners.record(room)
    await second.owners.record("c")
    assert await second.owners.orphans(["p2"]) == ["a", "b"]
    assert await second.owners.orphans(["p1", "p2"]) == []
    assert await second.owners.orphans([]) == ["a", "b", "c"]
