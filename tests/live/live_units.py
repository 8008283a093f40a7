"""What the focused tests of the live layer's modules share: tables built by the table core's own
commands (with the log entries they made, so that a room reloaded from the store is the same table) and
a live room on a real `MemoryStore` (the connection stand-in is `Peer`, in tests/live/shared_peers.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from server.live import LiveRoom, RoomListener
from server.store import MemoryStore
from server.table import Outcome, Table, facts, hash_token, seating, to_stored

HOST_TOKEN = "token-of-the-host"
SECOND_TOKEN = "token-of-the-second-player"


@dataclass(frozen=True)
class Built:
    """A table and every log entry the commands that built it made."""

    table: Table
    entries: list[dict[str, Any]] = field(default_factory=list)

    def then(self, outcome: Outcome) -> Built:
        """After one more command."""
        return Built(outcome.table, [*self.entries, *outcome.entries])


def waiting_table(room_id: str = "room1", grace: float = 30.0, seat: int | None = 0, listed: bool = True,
                  created_at: float = 1_764_441_000.0) -> Built:
    """A solo-whist table not started yet: the host (`HOST_TOKEN`) at `seat`."""
    created = seating.create(room_id, token=HOST_TOKEN, player="Ann", ruleset="solo-whist", house_rules={},
                             bot="random", name=None, seat=seat, deals=1, target=None, grace_seconds=grace,
                             listed=listed, now=created_at)
    return Built(created.table, list(created.entries))


def two_player_table(room_id: str = "room1", grace: float = 30.0) -> Built:
    """A waiting table with the host at seat 0 and a second human (`SECOND_TOKEN`) at seat 1."""
    built = waiting_table(room_id, grace)
    return built.then(seating.join(built.table, SECOND_TOKEN, "Bob", 1))


def started(built: Built) -> Built:
    """The table started by its host (bots fill the empty seats, the first deal is dealt)."""
    return built.then(seating.start(built.table, hash_token(HOST_TOKEN), "secret-1"))


def ended(built: Built) -> Built:
    """The table with its session ended (as the host's `end_game` leaves it)."""
    return Built(replace(built.table, ended=True), built.entries)


async def save(store: MemoryStore, built: Built) -> int:
    """Store the table (new in `store`) with its log; its stored version."""
    return await store.save(built.table.room_id, to_stored(built.table), 0, built.entries,
                            facts.lobby_entry(built.table))


async def stored_room(built: Built, listeners: Sequence[RoomListener],
                      store: MemoryStore | None = None) -> LiveRoom:
    """A live room for the table, saved first in `store` (a fresh `MemoryStore` by default)."""
    store = store if store is not None else MemoryStore()
    version = await save(store, built)
    return LiveRoom(replace(built.table, version=version), store, listeners)
