"""A room's finished deals for a reader (server/live/records.py): from the copy this process holds
while it is current, else from the store without opening the room here, else from the archive once the
store has let the room go; a room nowhere is `NoSuchRoom`, an archive that does not answer is
`StoreUnavailable` (retry), never "no such room"."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from archive_sessions import finished, humans
from live_units import Built, save, started, waiting_table

from server.archive import Archive, open_archive
from server.live import RoomRegistry
from server.live.records import ArchivedRecords, RoomRecords
from server.store import MemoryStore
from server.table import deal_records, errors, play


def one_deal_played(built: Built) -> Built:
    """The table after every seat played seeded random legal actions to the end of its first deal."""
    rng = random.Random(7)
    assert built.table.session is not None
    while not (deal := built.table.session.deal).finished:
        seat = min(deal.to_act())
        built = built.then(play.act(built.table, seat, rng.choice(deal.legal_actions(seat)), by_bot=True))
    return built


@pytest.fixture()
async def archive(tmp_path: Path) -> AsyncIterator[Archive]:
    opened = await open_archive(f"sqlite:///{tmp_path / 'archive.db'}")
    yield opened
    await opened.close()


def reader(store: MemoryStore, archive: Archive | None = None) -> tuple[RoomRecords, RoomRegistry]:
    registry = RoomRegistry(store, contextlib.nullcontext)

    async def opened() -> Archive:
        assert archive is not None
        return archive

    return RoomRecords(store, registry, None if archive is None else ArchivedRecords(opened)), registry


async def test_a_stored_room_is_read_from_the_store_without_being_opened_here() -> None:
    store = MemoryStore()
    built = one_deal_played(started(waiting_table("room-r")))
    await save(store, built)
    records, registry = reader(store)
    answer = await records.for_reader("room-r")
    expected = deal_records(built.table.session, built.table.hints)
    assert len(expected) == 1
    assert answer == {"room_id": "room-r", "records": expected}
    assert registry.held("room-r") is None  # a read opens nothing here


async def test_a_room_held_here_and_current_answers_from_memory() -> None:
    now = [0.0]
    store = MemoryStore(clock=lambda: now[0])
    built = one_deal_played(started(waiting_table("room-m")))
    await save(store, built)
    records, registry = reader(store)
    room = await registry.get("room-m")
    assert room is not None and not room.stale
    assert await store.retain("room-m", 1, 10.0)
    now[0] = 11.0
    assert await store.load("room-m") is None
    # The store has let it go: only the copy held here can answer.
    expected = deal_records(built.table.session, built.table.hints)
    assert (await records.for_reader("room-m"))["records"] == expected


async def test_a_room_nowhere_is_no_such_room_and_none_for_the_api() -> None:
    records, _ = reader(MemoryStore())
    assert await records.for_reader("nowhere") is None
    with pytest.raises(errors.NoSuchRoom):
        await records.of_room("nowhere")


async def test_a_room_the_store_let_go_is_read_from_the_archive(archive: Archive) -> None:
    session = finished("room-a", humans("ann", "bob", "cy", "di"), deals=2, seed=5)
    await archive.write_session(session)
    records, _ = reader(MemoryStore(), archive)
    assert await records.of_room("room-a") == {"room_id": "room-a", "records": session.records(),
                                               "archived": True}
    with pytest.raises(errors.NoSuchRoom):
        await records.of_room("room-b")


async def test_an_archive_that_does_not_answer_is_retry_not_no_such_room(archive: Archive) -> None:
    await archive.close()

    async def broken() -> Archive:
        raise ConnectionError("the archive does not answer")

    records = RoomRecords(MemoryStore(), RoomRegistry(MemoryStore(), contextlib.nullcontext),
                          ArchivedRecords(broken))
    with pytest.raises(errors.StoreUnavailable):
        await records.of_room("room-a")
