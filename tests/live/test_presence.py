"""Shared presence (server/live/presence.py): the other processes' connections in a room are kept per
process and handed to the room; a seat left with no connection anywhere is heard as `away` (its grace
period starts), and the presence of a process that stopped beating is dropped."""

from __future__ import annotations

from shared_peers import Heard, Peer, create

from server.live import Tables
from server.store import MemoryStore


async def test_a_seat_connected_only_elsewhere_is_away_once_that_process_says_it_left() -> None:
    tables = Tables(MemoryStore(), bot_delay=0.0)
    try:
        heard = Heard()
        tables.listen(heard)
        host = Peer("Ann")
        room_id = await create(tables, host, seat=0)
        await tables.disconnect(host)  # seat 0 has no connection here (away here since now)
        room = tables.rooms[room_id]
        presence = tables.shared.presence
        async with room.lock:
            presence.heard(room, "B", {"seats": [0], "spectators": 1})
        assert presence.elsewhere(room_id) and 0 in room.table.presence.remote_seats
        assert room.table.presence.remote_spectators == 1 and 0 not in room.table.presence.away_since
        async with room.lock:
            presence.heard(room, "B", {"seats": [], "spectators": 0})
        assert heard.of("away") == [("away", room_id, 0)] and not presence.elsewhere(room_id)
    finally:
        await tables.close()


async def test_the_presence_of_a_process_that_stopped_beating_is_dropped() -> None:
    tables = Tables(MemoryStore(), bot_delay=0.0)
    try:
        await tables.join_cluster()
        host = Peer("Ann")
        room_id = await create(tables, host, seat=0)
        room = tables.rooms[room_id]
        presence = tables.shared.presence
        async with room.lock:
            presence.heard(room, "ghost", {"seats": [1], "spectators": 2})
        assert presence.rooms_elsewhere() == [room_id]
        assert not await presence.live_elsewhere(room_id)  # "ghost" is no process the registry lists
        await presence.drop_dead()
        assert presence.rooms_elsewhere() == [] and room.table.presence.remote_spectators == 0
        assert host.last_state() is not None
    finally:
        await tables.close()
