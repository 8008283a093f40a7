"""Finished sessions leave the live store for the archive (docs/archive.md, "The live side").

The room's owner (the process that runs its bots and timers: the `Owner` port) builds the archived
form of a session once it is over (played out, ended by the host, or abandoned) from the table and the
seats' credited players (kept with the room in the store), and hands it to the archive's background
writer, once per process and session. When the writer says the session is in the archive, the room's
live keys get an expiry of `retention` seconds and the room leaves the rooms index (`Store.retain`);
"play again" before then takes the expiry away (`Store.persist`). The archive's session id makes a
second write of a session a no-op, so a process that dies half-way costs nothing: whoever loads the
finished room next (a restart, an adoption, a spectator) finds it unarchived and submits it again,
after taking its lease (`claim`), so that two processes loading it at once do not both build it.

Abandonment: a started room with no human connected anywhere (no seated human, no spectator) for
`abandon_after` seconds is ended by its owner as it stands (`play.abandon`), and so archived.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..archive import ArchivedSession, ArchiveWriter
from ..archive.from_table import archived_session
from ..store import Store
from ..table import SEATS, Table, TableError, facts, play
from .change import CommittedChange
from .room import LiveRoom, Owner, RoomListener

log = logging.getLogger("whist.archive")

RETRY_SECONDS = 2.0  # a submission whose credits could not be read (the store did not answer)


@dataclass(frozen=True, slots=True)
class ArchivePolicy:
    """How long an archived room stays in the live store, and how long a started room may stay with
    nobody in it before it is ended and archived (the `--retention` and `--abandon-after` flags)."""

    retention: float = 86400.0
    abandon_after: float = 1800.0


def deserted(table: Table) -> bool:
    """Whether a started, unfinished room has no human connected anywhere (no seated human connected,
    no spectator)."""
    if table.session is None or facts.over(table) or facts.spectators(table) > 0:
        return False
    return not any(facts.connected(table, seat) for seat in SEATS if table.seats[seat].kind == "human")


class Archiving(RoomListener):
    """Submits each finished session of the rooms this process owns to the archive's writer, gives the
    room's keys their retention once it is archived, and ends rooms left deserted."""

    def __init__(self, writer: ArchiveWriter, store: Store, owner: Owner,
                 claim: Callable[[str], Awaitable[bool]], release: Callable[[str], Awaitable[bool]],
                 held: Callable[[str], LiveRoom | None], forget: Callable[[LiveRoom], None],
                 policy: ArchivePolicy,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.writer = writer
        self.store = store
        self.owner = owner  # whether this process runs the room (several processes: its owner)
        self.claim = claim  # take a finished room's lease (nobody else submits it meanwhile)
        self.release = release  # give it up once archived, if the room is not held here any more
        self.held = held  # the room registry's lookup of rooms held here
        # The registry drops a finished room nobody uses from memory (its lease goes with it): once
        # archived, a room played out by bots alone, or adopted with nobody in it, is not kept for ever.
        self.forget = forget
        self.policy = policy
        self.wall_clock = wall_clock
        self._submitted: set[tuple[str, int]] = set()  # (room, session number) handed to the writer
        self._deserted: dict[LiveRoom, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    # ---------------------------------------------------------------- hooks

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """A session may have ended (submit it), started again (no expiry), or the room may have been
        left by its last human (the abandonment timer)."""
        if not change.received and any(entry.get("t") == "started" for entry in change.entries) \
                and room.table.session_number > 0:
            self._spawn(self._persist(room.room_id))
        if room.over and self.owner.owns(room):
            self._submit(room.table)
        self._watch(room)

    async def loaded(self, room: LiveRoom) -> None:
        """A room loaded from the store: a finished session not archived yet is submitted (again)."""
        if room.over:
            self._spawn(self._recover(room))

    async def owned(self, room: LiveRoom) -> None:
        """This process runs the room now (adopted, taken over): finish what its last owner left."""
        if room.over:
            self._submit(room.table)
        self._watch(room)

    async def disowned(self, room: LiveRoom) -> None:
        """Another process runs the room now: its abandonment timer is theirs."""
        self._unwatch(room)

    def away(self, room: LiveRoom, seat: int) -> None:
        """A seat left with no connection anywhere: perhaps the last human."""
        self._watch(room)

    def closed(self, room: LiveRoom) -> None:
        """The room left this process's memory."""
        self._unwatch(room)

    async def stop(self) -> None:
        """Cancel the timers and the work under way (the writer keeps what it was given)."""
        for handle in self._deserted.values():
            handle.cancel()
        self._deserted.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    # ---------------------------------------------------------------- submitting

    def _spawn(self, coroutine: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _submit(self, table: Table) -> None:
        """Hand the table's session to the writer (once per process and session)."""
        key = (table.room_id, table.session_number)
        if table.session is None or key in self._submitted:
            return
        self._submitted.add(key)
        self._spawn(self._build(table))

    async def _build(self, table: Table) -> None:
        while True:
            try:
                players = await self.store.seat_credits(table.room_id)
                break
            except Exception as failure:  # the store is away: the credits are needed, try again
                log.warning("archive: seat credits not read", extra={"fields": {
                    "room": table.room_id, "error": type(failure).__name__}})
                await asyncio.sleep(RETRY_SECONDS)
        session = archived_session(table, players, self.wall_clock())
        number = table.session_number

        async def done(archived: ArchivedSession, written: bool) -> None:
            await self._retain(archived, number, written)

        self.writer.submit(session, done)
        log.info("session submitted to the archive", extra={"fields": {
            "room": table.room_id, "session_id": session.session_id, "deals": len(session.deals),
            "complete": session.complete}})

    async def _recover(self, room: LiveRoom) -> None:
        """A finished room just loaded: submit it if its session is not archived yet, as the one
        holding its lease."""
        table = room.table
        try:
            if await self.store.archived(table.room_id) == table.session_number:
                return
            if not await self.claim(table.room_id):
                return  # another process holds it (and submits it)
        except Exception as failure:
            log.warning("archive: finished room not checked", extra={"fields": {
                "room": table.room_id, "error": type(failure).__name__}})
            return
        self._submit(table)

    async def _retain(self, session: ArchivedSession, number: int, written: bool) -> None:
        """The session is in the archive: the room's keys get their expiry (none if the table played
        again meanwhile here)."""
        room_id = session.room_id
        await self.store.retain(room_id, number, self.policy.retention)
        room = self.held(room_id)
        if room is not None and room.table.session_number != number:
            await self.store.persist(room_id)
        elif room is not None:
            self.forget(room)
        self._submitted.discard((room_id, number))
        if room is None:  # e.g. loaded, claimed to be submitted again, and dropped from memory since
            await self.release(room_id)
        log.info("session archived", extra={"fields": {
            "room": room_id, "session_id": session.session_id, "written": written,
            "retention": self.policy.retention}})

    async def _persist(self, room_id: str) -> None:
        try:
            await self.store.persist(room_id)
        except Exception as failure:
            log.warning("archive: expiry not removed after play again", extra={"fields": {
                "room": room_id, "error": type(failure).__name__}})

    # ---------------------------------------------------------------- abandonment

    def _watch(self, room: LiveRoom) -> None:
        """Arm the room's abandonment timer when it is deserted (and owned here), cancel it otherwise;
        the period runs from the moment it became deserted."""
        if not (deserted(room.table) and self.owner.owns(room)):
            self._unwatch(room)
        elif room not in self._deserted:
            handle = asyncio.get_running_loop().call_later(self.policy.abandon_after, self._abandon, room)
            self._deserted[room] = handle

    def _unwatch(self, room: LiveRoom) -> None:
        handle = self._deserted.pop(room, None)
        if handle is not None:
            handle.cancel()

    def _abandon(self, room: LiveRoom) -> None:
        self._deserted.pop(room, None)
        if deserted(room.table) and self.owner.owns(room):
            self._spawn(self._end(room))

    async def _end(self, room: LiveRoom) -> None:
        try:
            outcome = await room.apply(lambda table: play.abandon(table) if deserted(table) else None,
                                       human=False)
        except TableError as problem:
            log.warning("room %s: not abandoned: %s", room.room_id, problem.message)
            self._watch(room)  # try again after another period
            return
        if outcome is not None:
            log.info("room abandoned", extra={"fields": {"room": room.room_id,
                                                         "seconds": self.policy.abandon_after}})
