"""The finished deals of a room for a reader: its live copy's while this process or the store holds
the room, every archived session's once the store has let it go. Reading opens nothing: no bots,
timers or leases start for a room loaded only to answer."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from ..archive import Archive
from ..store import Store
from ..table import Table, deal_records, errors, from_stored
from .change import JSON
from .registry import RoomRegistry
from .room import LiveRoom

log = logging.getLogger("whist.rooms")


class ArchivedRecords:
    """The archive as the live layer reads it, for a room no longer in the store (`get_records`,
    `watch`): the writer's open archive (`ArchiveWriter.archive`)."""

    def __init__(self, archive: Callable[[], Awaitable[Archive]]) -> None:
        self._archive = archive

    async def room_records(self, room_id: str) -> list[JSON] | None:
        """Every archived session's deal records of the room, in play order; None if the archive has
        no session of that room. Raises what the archive raises when it does not answer."""
        sessions = await (await self._archive()).room_sessions(room_id)
        if not sessions:
            return None
        return [record for session in sessions for record in session.records()]


def table_records(room_id: str, table: Table) -> JSON:
    """A table's finished deals (no card of a deal in progress), as `get_records` answers them."""
    return {"room_id": room_id, "records": deal_records(table.session, table.hints)}


class RoomRecords:
    """`get_records` and the HTTP API's records of a room, read from the registry, the store and
    the archive (`archived`: None where this process has no archive)."""

    def __init__(self, store: Store, registry: RoomRegistry, archived: ArchivedRecords | None) -> None:
        self._store = store
        self._registry = registry
        self._archived = archived

    async def of_room(self, room_id: str) -> JSON:
        """A room's records for a connection outside it: its live copy's, else (the store has let it
        go) every archived session's, marked `archived`; `NoSuchRoom` if neither has it."""
        found = await self._registry.get(room_id)
        if found is None:
            return {"room_id": room_id, "records": await self.archived(room_id), "archived": True}
        self._registry.forget_if_idle(found)  # loaded for this answer only: not kept
        return table_records(room_id, found.table)

    async def of_own_room(self, room: LiveRoom) -> JSON:
        """The records of the connection's own room, caught up with the store first when its live copy
        may be behind it."""
        if room.stale:
            try:
                await room.reload()
            except Exception:
                log.exception("room %s: reload failed", room.room_id)
                raise errors.StoreUnavailable("the store does not answer: retry") from None
        return table_records(room.room_id, room.table)

    async def for_reader(self, room_id: str) -> JSON | None:
        """What `get_records` would answer in room `room_id`, for a reader outside the room (the HTTP
        API); None for a room neither held here nor in the store. A room held here and current answers
        from memory; any other is read from the store without being opened here."""
        room = self._registry.held(room_id)
        if room is not None and not room.stale:
            return table_records(room_id, room.table)
        stored = await self._store.load(room_id)
        if stored is None:
            return None
        entries = await self._store.read_log(room_id) if stored.state.get("session") is not None else []
        return table_records(room_id, from_stored(stored.state, stored.version, entries))

    async def archived(self, room_id: str) -> list[JSON]:
        """A room's records from the archive, or `NoSuchRoom`; `StoreUnavailable` when the archive
        does not answer."""
        if self._archived is not None:
            try:
                records = await self._archived.room_records(room_id)
            except Exception as failure:
                log.warning("archive not read", extra={"fields": {"room": room_id,
                                                                  "error": type(failure).__name__}})
                raise errors.StoreUnavailable("the archive does not answer: retry") from None
            if records is not None:
                return records
        raise errors.NoSuchRoom(f"no room with id {room_id!r}")
