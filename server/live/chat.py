"""Table chat, the live part: its own channel, never the table's state.

A line is checked by the table core (`server/table/chat.py`: its text or phrase, the host's mute),
kept with the room in the store (its last `KEEP_LINES` lines: a reload, a reconnect and a failover
show them again), then pushed as a `chat` message to the connections of the room here that may read
it, and published to the other processes following the room, which push it to theirs. No view is
rebuilt per line, and the state's leak filter never sees a line ("AS KH" typed by a player is text).
Each connection has its own rate limit.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..store import Store
from ..table import chat, errors, facts
from .change import JSON
from .room import LiveRoom, Member

log = logging.getLogger("whist.rooms")

#: A connection may say `BURST` lines at once, then one more every `REFILL_SECONDS`.
BURST = 5
REFILL_SECONDS = 2.0

PublishLine = Callable[[LiveRoom, JSON], None]  # hand a line to the other processes following the room


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


class RoomChat:
    """Says, keeps, delivers and replays the chat lines of this process's rooms."""

    def __init__(self, store: Store, publish: PublishLine, monotonic: Callable[[], float] = time.monotonic,
                 wall_clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.publish = publish
        self.monotonic = monotonic
        self.wall_clock = wall_clock
        self._buckets: dict[Member, _Bucket] = {}

    async def say(self, room: LiveRoom, member: Member, participant: str | None, text: str | None,
                  phrase: str | None) -> JSON:
        """A line from a connection of the room: checked, kept, then delivered everywhere. Answered
        only once the store holds it (a line a player was told was sent is never lost)."""
        line = chat.new_line(room.table, participant, member.name, text, phrase, self.wall_clock())
        self._spend(member)
        try:
            kept = await self.store.append_chat(room.room_id, line, chat.KEEP_LINES)
        except Exception as failure:
            log.exception("room %s: chat line not stored", room.room_id)
            raise errors.StoreUnavailable(f"the line could not be kept ({type(failure).__name__}); it was "
                                          "not sent: retry") from None
        if not kept:  # the room's retention after the archive ran out while this connection stayed
            raise errors.NoSuchRoom(f"room {room.room_id!r} is over and has left the live store: the line "
                                    "was not sent")
        self.deliver(room, line)
        self.publish(room, line)
        return {"room_id": room.room_id}

    def heard(self, room: LiveRoom, line: JSON) -> None:
        """A line said through another process: push it to the connections here."""
        self.deliver(room, line)

    def deliver(self, room: LiveRoom, line: JSON) -> None:
        """Push one line to every connection of the room here that may read it."""
        message = {"type": "chat", "room_id": room.room_id, "lines": [chat.on_the_wire(line)]}
        for member, participant in list(room.members.items()):
            if chat.readable_by(line, seated=facts.seat_of(room.table, participant) is not None):
                member.push(message)

    async def replay(self, room: LiveRoom, member: Member, participant: str | None) -> None:
        """Right after a connection enters the room: one `chat` push with the kept lines it may read."""
        try:
            lines = await self.store.chat_lines(room.room_id)
        except Exception:
            log.exception("room %s: chat lines not read", room.room_id)
            return
        seated = facts.seat_of(room.table, participant) is not None
        member.push({"type": "chat", "room_id": room.room_id,
                     "lines": [chat.on_the_wire(line) for line in lines if chat.readable_by(line, seated)]})

    def forget(self, member: Member) -> None:
        """The connection closed: drop its rate bucket."""
        self._buckets.pop(member, None)

    def _spend(self, member: Member) -> None:
        """Take one token of the connection's bucket, or refuse the line (`rate_limited`)."""
        now = self.monotonic()
        bucket = self._buckets.get(member)
        if bucket is None:
            bucket = self._buckets[member] = _Bucket(float(BURST), now)
        bucket.tokens = min(float(BURST), bucket.tokens + (now - bucket.at) / REFILL_SECONDS)
        bucket.at = now
        if bucket.tokens < 1.0:
            wait = (1.0 - bucket.tokens) * REFILL_SECONDS
            raise errors.ChatRateLimited(f"too many chat lines: wait {wait:.1f} s")
        bucket.tokens -= 1.0
