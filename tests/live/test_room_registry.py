"""The room registry (server/live/registry.py): a room is loaded from the store once however many ask
for it at the same time, its listeners hear `opened` and `loaded` once, a load that fails fails every
waiter and can be tried again, and a finished room nobody uses is dropped unless a listener is still
`busy` with it."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from live_units import Built, ended, save, started, waiting_table

from server.live import LiveRoom, RoomListener, RoomRegistry
from server.store import MemoryStore, StoredRoom
from server.table import errors


class SlowStore(MemoryStore):
    """A memory store whose loads take a moment (so that requests overlap), counted; it can be made to
    fail its loads."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0
        self.failing = False

    async def load(self, room_id: str) -> StoredRoom | None:
        self.loads += 1
        await asyncio.sleep(0.05)
        if self.failing:
            raise ConnectionError("the store does not answer")
        return await super().load(room_id)


class Hooks(RoomListener):
    """Keeps the hooks heard; `busy` as set."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, str]] = []
        self.working = False

    def opened(self, room: LiveRoom) -> None:
        self.heard.append(("opened", room.room_id))

    async def loaded(self, room: LiveRoom) -> None:
        self.heard.append(("loaded", room.room_id))

    def closed(self, room: LiveRoom) -> None:
        self.heard.append(("closed", room.room_id))

    def busy(self, room: LiveRoom) -> bool:
        return self.working


async def registry_with(*tables: Built) -> tuple[RoomRegistry, SlowStore, Hooks]:
    store = SlowStore()
    for table in tables:
        await save(store, table)
    registry = RoomRegistry(store, contextlib.nullcontext)
    hooks = Hooks()
    registry.listen(hooks)
    return registry, store, hooks


async def test_concurrent_gets_load_the_room_once() -> None:
    registry, store, hooks = await registry_with(started(waiting_table("room1")))
    rooms = await asyncio.gather(*(registry.get("room1") for _ in range(5)))
    assert all(room is rooms[0] for room in rooms) and rooms[0] is not None
    assert store.loads == 1
    assert hooks.heard == [("opened", "room1"), ("loaded", "room1")]
    assert registry.held("room1") is rooms[0]
    assert await registry.get("room1") is rooms[0] and store.loads == 1, "held rooms are not loaded again"


async def test_a_loaded_room_has_its_humans_away_until_they_come_back() -> None:
    registry, _, _ = await registry_with(started(waiting_table("room1")))
    room = await registry.require("room1")
    assert set(room.table.presence.away_since) == {0}
    assert room.version == 1
    assert room.table.session is not None and room.table.session.deal.view(0)["hand"], "the log replayed"


async def test_an_unknown_room_is_none_or_no_such_room() -> None:
    registry, _, hooks = await registry_with()
    assert await registry.get("nowhere") is None
    with pytest.raises(errors.NoSuchRoom):
        await registry.require("nowhere")
    assert hooks.heard == [] and registry.rooms == {}


async def test_a_failed_load_fails_every_waiter_and_the_next_get_tries_again() -> None:
    registry, store, _ = await registry_with(waiting_table("room1"))
    store.failing = True
    results = await asyncio.gather(*(registry.get("room1") for _ in range(3)), return_exceptions=True)
    assert all(isinstance(result, ConnectionError) for result in results)
    assert store.loads == 1
    store.failing = False
    assert await registry.get("room1") is not None
    assert store.loads == 2


async def test_a_finished_idle_room_is_forgotten_unless_a_listener_is_busy() -> None:
    registry, _, hooks = await registry_with()
    room = registry.open(ended(waiting_table("room1")).table)
    hooks.working = True
    registry.forget_if_idle(room)
    assert registry.held("room1") is room, "a busy listener keeps it"
    hooks.working = False
    registry.forget_if_idle(room)
    assert registry.held("room1") is None
    assert hooks.heard[-1] == ("closed", "room1")


async def test_a_room_in_use_or_unfinished_is_kept() -> None:
    registry, _, hooks = await registry_with()
    playing = registry.open(waiting_table("room1").table)
    registry.forget_if_idle(playing)
    finished = registry.open(ended(waiting_table("room2")).table)
    finished.members[object()] = None  # type: ignore[index]
    registry.forget_if_idle(finished)
    assert set(registry.rooms) == {"room1", "room2"}
    assert ("closed", "room1") not in hooks.heard and ("closed", "room2") not in hooks.heard


async def test_load_all_keeps_the_unfinished_rooms_only() -> None:
    registry, _, _ = await registry_with(started(waiting_table("room1")),
                                         ended(waiting_table("room2")))
    await registry.load_all()
    assert set(registry.rooms) == {"room1"}


async def test_a_held_room_the_store_let_go_is_dropped_and_the_store_answers_for_it() -> None:
    registry, store, hooks = await registry_with(ended(waiting_table("room1")))
    room = await registry.require("room1")
    room.members[object()] = None  # type: ignore[index]
    await store.retain("room1", 0, 0.0)  # the retention after the archive has run out
    assert not await room.catch_up() and room.gone
    assert await registry.get("room1") is None, "loaded again: the store has no such room"
    assert registry.held("room1") is None and hooks.heard[-1] == ("closed", "room1")
