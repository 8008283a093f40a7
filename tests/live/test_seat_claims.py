"""Seat claims (server/live/seat_claims.py and its port in `Tables`): after any change, a connection
whose seat was resumed since by a newer connection (maybe in another process) moves to the rail and
stays in the room; a connection whose own resume is under way does not; the listener keeps the room
while a move is under way."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from shared_peers import Peer, eventually

from server.coord import MemoryHub, memory_coordination
from server.coord.fanout import MemoryFanout, MemoryFanoutHub
from server.live import LiveRoom, Member, NewRoom, RoomListener, SessionSpan, Tables
from server.live.change import CommittedChange
from server.live.seat_claims import SeatClaims
from server.store import MemoryStore
from server.table import seating


def seated(peer: Peer) -> int | None:
    state = peer.last_state()
    assert state is not None
    return state["you"]["seat"]  # type: ignore[no-any-return]


async def create(tables: Tables, host: Peer) -> tuple[str, str]:
    """A room with `host` at seat 0: its id and the host's token."""
    answer = await tables.create_room(host, NewRoom(ruleset="solo-whist", seat=0, bot="random",
                                                    grace_seconds=60.0, session=SessionSpan(1)))
    return str(answer["room_id"]), str(answer["token"])


class Book:
    """A claims port: the members it says are outclaimed, and the moves asked (each takes a moment)."""

    def __init__(self, outclaimed: list[Member]) -> None:
        self.members = outclaimed
        self.moved: list[Member] = []

    def outclaimed(self, room: LiveRoom) -> list[Member]:
        return list(self.members)

    async def to_spectator(self, room: LiveRoom, member: Member) -> None:
        await asyncio.sleep(0.02)
        self.moved.append(member)


async def test_the_listener_moves_every_outclaimed_member_and_keeps_the_room_meanwhile() -> None:
    first, second = Peer("Ann"), Peer("Ann's tab")
    book = Book([first, second])
    listener = SeatClaims(book)
    room: LiveRoom = object()  # type: ignore[assignment]  # only passed through to the port
    listener.committed(room, CommittedChange("room1", 2))
    assert listener.busy(room), "the moves are under way"
    await eventually(lambda: len(book.moved) == 2, timeout=5, what="both moved")
    assert set(book.moved) == {first, second}
    await eventually(lambda: not listener.busy(room), timeout=5, what="idle again")
    book.members = []
    listener.committed(room, CommittedChange("room1", 3))
    assert not listener.busy(room)


async def test_a_seat_resumed_in_another_process_moves_the_older_connection_to_the_rail(
    two: tuple[Tables, Tables],
) -> None:
    here, there = two
    ann = Peer("Ann")
    room_id, token = await create(here, ann)
    assert seated(ann) == 0
    phone = Peer("Ann's phone")
    await there.resume(phone, room_id, token)
    await eventually(lambda: seated(ann) is None, what="the older connection on the rail")
    assert here.room_of(ann) is not None and here.room_of(ann).room_id == room_id  # type: ignore[union-attr]
    assert seated(phone) == 0


async def test_a_seat_claimed_by_a_change_from_elsewhere_moves_the_connection_here() -> None:
    tables = Tables(MemoryStore(), bot_delay=0.0)
    try:
        ann = Peer("Ann")
        room_id, token = await create(tables, ann)
        room = tables.rooms[room_id]
        assert tables.outclaimed(room) == []
        # The claim a resume made elsewhere would store: the connection here is older now.
        await room.apply(lambda table: seating.resume(table, token))
        await eventually(lambda: seated(ann) is None, what="moved to the rail")
        assert tables.outclaimed(room) == []
    finally:
        await tables.close()


class Outclaimed(RoomListener):
    """Asks the port, as each change is stored (the seat's new claim is in the table, the connections
    not moved yet), which connections it counts as outclaimed."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.seen: list[list[Member]] = []

    async def stored(self, room: LiveRoom, change: CommittedChange) -> None:
        self.seen.append(self.tables.outclaimed(room))


async def test_a_connection_resuming_its_own_seat_keeps_it() -> None:
    tables = Tables(MemoryStore(), bot_delay=0.0)
    asked = Outclaimed(tables)
    tables.listen(asked)
    try:
        ann = Peer("Ann")
        room_id, token = await create(tables, ann)
        for _ in range(3):
            answer = await tables.resume(ann, room_id, token)
            assert answer["seat"] == 0
        assert asked.seen and all(members == [] for members in asked.seen), \
            "its own resume under way: not outclaimed"
        await asyncio.sleep(0.1)  # any move to the rail would have run by now
        assert seated(ann) == 0
        assert all(message["you"]["seat"] == 0 for message in ann.pushed if message["type"] == "state")
    finally:
        await tables.close()


class GatedFanout(MemoryFanout):
    """A fan-out whose subscriptions wait at a gate once it is armed (a slow Redis SUBSCRIBE)."""

    def __init__(self, process_id: str, hub: MemoryFanoutHub) -> None:
        super().__init__(process_id, hub)
        self.armed = False
        self.waiting = asyncio.Event()
        self.gate = asyncio.Event()

    async def _subscribe_channel(self, room_id: str) -> None:
        if self.armed:
            self.waiting.set()
            await self.gate.wait()
        await super()._subscribe_channel(room_id)


async def test_a_connection_that_closes_while_it_moves_to_the_rail_leaves_the_room_for_good() -> None:
    store, hub = MemoryStore(), MemoryHub()
    fanout = GatedFanout("A", hub.fanout)
    here = Tables(store, bot_delay=0.0, coordination=replace(memory_coordination("A", hub), fanout=fanout))
    there = Tables(store, bot_delay=0.0, coordination=memory_coordination("B", hub))
    try:
        for tables in (here, there):
            await tables.join_cluster()
        ann = Peer("Ann")
        room_id, token = await create(here, ann)
        # The seat resumed in the other process: here hands the room over, and the move of Ann's
        # connection to the rail follows the room again, which waits at the gate...
        fanout.armed = True
        await there.resume(Peer("Ann's phone"), room_id, token)
        await asyncio.wait_for(fanout.waiting.wait(), timeout=20)
        # ... while Ann's connection closes.
        ann.closing = True
        closed = asyncio.ensure_future(here.disconnect(ann))
        for _ in range(10):
            await asyncio.sleep(0)
        fanout.gate.set()
        await asyncio.wait_for(closed, timeout=20)
        await eventually(lambda: here.room_of(ann) is None, what="the closed connection in no room")
        room = here.rooms.get(room_id)
        assert room is None or ann not in room.members, "a closed connection stays in the room"
        await eventually(lambda: not here.shared.following.follows(room_id),
                         what="the room no longer followed where nobody is connected")
    finally:
        for tables in (here, there):
            await tables.close()
