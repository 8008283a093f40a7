"""The lobby (server/live/lobby.py): the listed, unfinished rooms in the order they were created, with
live spectator counts for the rooms this process holds; one push to the subscribers per burst of
changes that move a room's line, none for a change that was not stored or moved nothing."""

from __future__ import annotations

import asyncio
from typing import Any

from live_units import SECOND_TOKEN, ended, save, stored_room, waiting_table
from shared_peers import Peer, eventually

from server.live import LiveRoom, Lobby
from server.live import lobby as lobby_module
from server.store import MemoryStore
from server.table import chat, seating


def pushes(peer: Peer) -> list[list[dict[str, Any]]]:
    return [message["rooms"] for message in peer.pushed if message["type"] == "lobby"]


async def test_the_lobby_lists_listed_unfinished_rooms_oldest_first() -> None:
    store = MemoryStore()
    await save(store, waiting_table("late", created_at=2000.0))
    await save(store, waiting_table("early", created_at=1000.0))
    await save(store, waiting_table("private", listed=False))
    await save(store, ended(waiting_table("over")))
    lobby = Lobby(store, lambda room_id: None)
    assert [entry["room_id"] for entry in await lobby.rooms()] == ["early", "late"]


async def test_a_room_held_here_shows_its_live_line_and_spectators() -> None:
    store = MemoryStore()
    built = waiting_table("room1")
    await save(store, built)
    room = LiveRoom(built.table, store, [])
    held: dict[str, LiveRoom] = {"room1": room}
    lobby = Lobby(store, held.get)
    await room.admit(Peer("Watcher"), None)
    (entry,) = await lobby.rooms()
    assert entry["spectators"] == 1, "the live count, not the stored 0"
    room.table = seating.join(room.table, SECOND_TOKEN, "Bob", 1).table  # not stored yet
    (entry,) = await lobby.rooms()
    assert entry["humans"] == 2 and entry["free_seats"] == 2
    room.table = ended(waiting_table("room1")).table
    assert await lobby.rooms() == [], "finished here, though the store still lists it"


async def test_subscribers_get_one_push_per_burst_of_line_changes() -> None:
    store = MemoryStore()
    held: dict[str, LiveRoom] = {}
    lobby = Lobby(store, held.get)
    room = held["room1"] = await stored_room(waiting_table("room1"), [lobby], store)
    lobby.opened(room)
    ann, bob = Peer("Ann"), Peer("Bob")
    lobby.subscribe(ann, True)
    lobby.subscribe(bob, True)
    lobby.subscribe(bob, False)
    await room.apply(lambda table: seating.join(table, SECOND_TOKEN, "Bob", 1))
    await room.apply(lambda table: seating.add_bot(table, table.host, 2, None))
    await eventually(lambda: pushes(ann), timeout=5, what="a lobby push")
    await asyncio.sleep(lobby_module.LOBBY_COALESCE_SECONDS * 4)
    assert len(pushes(ann)) == 1, "two changes, one push"
    assert pushes(ann)[0][0]["free_seats"] == 1, "the push shows the latest line"
    assert pushes(bob) == [], "unsubscribed"

    await room.admit(Peer("Watcher"), None)  # presence only: not stored
    await asyncio.sleep(lobby_module.LOBBY_COALESCE_SECONDS * 4)
    assert len(pushes(ann)) == 1, "no push for a change that was not stored"
    version = room.version
    await room.apply(lambda table: chat.mute_seat(table, table.host, 1, True))  # stored, same line
    assert room.version == version + 1
    await asyncio.sleep(lobby_module.LOBBY_COALESCE_SECONDS * 4)
    assert len(pushes(ann)) == 1, "no push when the room's line did not move"
    await room.apply(lambda table: seating.remove_bot(table, table.host, 2))
    await eventually(lambda: len(pushes(ann)) == 2, timeout=5, what="a second push")
    assert pushes(ann)[1][0]["free_seats"] == 2 and pushes(ann)[1][0]["spectators"] == 1
    await lobby.stop()
