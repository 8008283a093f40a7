"""The thin live room: a command under the lock, a compare-and-set write, then the committed change to
the listeners (in order, as plain JSON data); a refused command or write changes nothing."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from server.live import CommittedChange, LiveRoom, RoomListener
from server.store import MemoryStore
from server.table import Outcome, Table, errors, facts, seating, to_stored

JSON = dict[str, Any]


class Recorder(RoomListener):
    """Keeps every hook call, in order."""

    def __init__(self, calls: list[tuple[str, Any]]) -> None:
        self.calls = calls

    async def stored(self, room: LiveRoom, change: CommittedChange) -> None:
        self.calls.append(("stored", change))

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        self.calls.append(("committed", change))


class Member:
    """A connection stand-in."""

    name = "Ann"
    wants_events = True
    closing = False

    def __init__(self) -> None:
        self.pushed: list[JSON] = []

    def push(self, message: JSON) -> None:
        self.pushed.append(message)


async def new_room(store: MemoryStore, calls: list[tuple[str, Any]]) -> LiveRoom:
    created = seating.create("r1", token="host-token", player="Ann", ruleset="solo-whist", house_rules={},
                             bot="random", name=None, seat=0, deals=1, target=None, grace_seconds=30.0,
                             listed=True, now=1.0)
    version = await store.save("r1", to_stored(created.table), 0, created.entries, None)
    return LiveRoom(replace(created.table, version=version), store, [Recorder(calls), Recorder(calls)])


async def test_a_change_is_stored_then_every_listener_hears_it_as_plain_data() -> None:
    store, calls = MemoryStore(), []
    room = await new_room(store, calls)
    outcome = await room.apply(lambda table: seating.add_bot(table, table.host, 2, None))
    assert outcome is not None and outcome.answer == {"seat": 2}
    assert [name for name, _ in calls] == ["stored", "stored", "committed", "committed"]
    change = calls[0][1]
    assert change.room_id == "r1" and change.version == 2 == room.version and change.stored
    assert change.events == ({"type": "seat_changed", "seat": 2, "kind": "bot", "name": "random bot"},)
    assert CommittedChange.from_json(json.loads(json.dumps(change.to_json()))) == change
    stored = await store.load("r1")
    assert stored is not None and stored.version == 2 and stored.state["seats"][2]["kind"] == "bot"
    assert (await store.read_log("r1"))[-1] == {"t": "seat", "seat": 2, "kind": "bot", "name": "random bot"}


async def test_a_refused_command_changes_nothing_and_tells_nobody() -> None:
    store, calls = MemoryStore(), []
    room = await new_room(store, calls)
    before = room.table
    with pytest.raises(errors.NotHost):
        await room.apply(lambda table: seating.add_bot(table, "someone else", 2, None))
    assert room.table is before and calls == []


async def test_a_lost_compare_and_set_reloads_and_changes_nothing() -> None:
    store, calls = MemoryStore(), []
    room = await new_room(store, calls)
    # Another process writes first.
    other = seating.add_bot(room.table, room.table.host, 3, None)
    await store.save("r1", to_stored(other.table), 1, other.entries, None)
    with pytest.raises(errors.Conflict):
        await room.apply(lambda table: seating.add_bot(table, table.host, 2, None))
    # Nothing stored; the listeners hear only of the reload (the connections were behind too).
    reload = CommittedChange("r1", 2, stored=False)
    assert calls == [("committed", reload), ("committed", reload)] and room.version == 2
    assert room.table.seats[3].kind == "bot" and room.table.seats[2].kind == "empty"


async def test_a_command_on_a_room_the_store_let_go_is_no_such_room_not_a_conflict_to_retry() -> None:
    store, calls = MemoryStore(clock=lambda: 10.0), []
    room = await new_room(store, calls)
    await store.retain("r1", 0, 0.0)  # the retention after the archive has run out
    before = room.table
    with pytest.raises(errors.NoSuchRoom):
        await room.apply(lambda table: seating.add_bot(table, table.host, 2, None))
    assert room.gone and room.table is before and calls == []
    assert await store.load("r1") is None, "nothing written back"
    with pytest.raises(errors.NoSuchRoom):
        await room.apply(lambda table: seating.add_bot(table, table.host, 3, None))


async def test_presence_is_not_stored_and_is_announced() -> None:
    store, calls = MemoryStore(), []
    room = await new_room(store, calls)
    member = Member()
    await room.admit(member, room.table.host)
    (_, change), _, _, _ = calls
    assert not change.stored and change.version == 1 and change.presence == {"arrived": 0}
    stored = await store.load("r1")
    assert facts.connected(room.table, 0) and stored is not None and stored.version == 1
    await room.release(member)
    assert calls[-1][1].presence == {"departed": 0} and not facts.connected(room.table, 0)


async def test_a_command_with_nothing_to_do_changes_nothing() -> None:
    store, calls = MemoryStore(), []
    room = await new_room(store, calls)

    def nothing(table: Table) -> Outcome | None:
        return None

    assert await room.apply(nothing) is None and calls == []
