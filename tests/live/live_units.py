"""What the focused tests of the live layer's modules share: tables built by the table core's own
commands and a live room on a real `MemoryStore` (the connection stand-in is `Peer`, in
tests/live/shared_peers.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from server.live import LiveRoom, RoomListener
from server.store import MemoryStore
from server.table import Table, hash_token, seating, to_stored

HOST_TOKEN = "token-of-the-host"
SECOND_TOKEN = "token-of-the-second-player"


def waiting_table(room_id: str = "room1", grace: float = 30.0, seat: int | None = 0) -> Table:
    """A solo-whist table not started yet: the host (`HOST_TOKEN`) at `seat`."""
    return seating.create(room_id, token=HOST_TOKEN, player="Ann", ruleset="solo-whist", house_rules={},
                          bot="random", name=None, seat=seat, deals=1, target=None, grace_seconds=grace,
                          listed=True, now=1_764_441_000.0).table


def two_player_table(room_id: str = "room1", grace: float = 30.0) -> Table:
    """A waiting table with the host at seat 0 and a second human (`SECOND_TOKEN`) at seat 1."""
    return seating.join(waiting_table(room_id, grace), SECOND_TOKEN, "Bob", 1).table


def started(table: Table) -> Table:
    """The table started by its host (bots fill the empty seats, the first deal is dealt)."""
    return seating.start(table, hash_token(HOST_TOKEN), "secret-1").table


async def stored_room(table: Table, listeners: Sequence[RoomListener],
                      store: MemoryStore | None = None) -> LiveRoom:
    """A live room for `table`, saved first in `store` (a fresh `MemoryStore` by default)."""
    store = store or MemoryStore()
    version = await store.save(table.room_id, to_stored(table), 0, [], None)
    return LiveRoom(replace(table, version=version), store, listeners)
