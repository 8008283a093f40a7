"""Publishing (server/live/publishing.py): a change committed here is published with the stored state
to the processes that follow the room, nothing is published for a room nobody else follows, and a
change heard from another process is never published again."""

from __future__ import annotations

from typing import Any

from shared_peers import Peer, create, eventually

from server.coord import Change, MemoryHub, memory_coordination
from server.coord.fanout import MemoryFanout
from server.live import CommittedChange, Tables
from server.store import MemoryStore


class Counting:
    """A fan-out's `publish_many`, counted."""

    def __init__(self, fanout: MemoryFanout) -> None:
        self.inner = fanout.publish_many
        self.rooms: list[str] = []

    async def __call__(self, changes: list[tuple[str, dict[str, Any]]]) -> list[int]:
        self.rooms += [room_id for room_id, _ in changes]
        return await self.inner(changes)


async def test_a_change_reaches_a_process_that_follows_the_room_with_its_stored_state() -> None:
    hub = MemoryHub()
    tables = Tables(MemoryStore(), bot_delay=0.0, coordination=memory_coordination("A", hub))
    other = MemoryFanout("C", hub.fanout)  # another process's subscriber
    received: list[Change] = []
    try:
        host = Peer("Ann")
        room_id = await create(tables, host)
        await other.subscribe(room_id, received.append)
        await tables.add_bot(host, 1, None)
        version = tables.rooms[room_id].version
        await eventually(lambda: any(message.change.get("change", {}).get("version") == version
                                     for message in received), what="C hears the change")
        message = next(m for m in received if m.change.get("change", {}).get("version") == version)
        assert message.origin == tables.shared.process_id and message.change["state"]["seats"]
    finally:
        await other.close()
        await tables.close()


async def test_nothing_is_published_for_a_room_nobody_else_follows_nor_for_a_change_heard_elsewhere() -> None:
    tables = Tables(MemoryStore(), bot_delay=0.0)
    try:
        host = Peer("Ann")
        room_id = await create(tables, host)
        fanout = tables.shared.coord.fanout
        assert isinstance(fanout, MemoryFanout) and fanout.alone(room_id)
        counting = Counting(fanout)
        fanout.publish_many = counting  # type: ignore[method-assign]
        await tables.add_bot(host, 1, None)
        room = tables.rooms[room_id]
        room.announce(CommittedChange(room_id, room.version, events=({"type": "x"},), received=True))
        await tables.shared.publisher.flush(1.0)
        assert counting.rooms == []
    finally:
        await tables.close()
