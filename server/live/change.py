"""The committed change a live room hands to its listeners, and the listener hooks.

A `CommittedChange` is plain data (JSON-serialisable with `to_json`): what a publisher needs to send
a room's change to other processes, and what every listener of this process reacts to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .room import LiveRoom

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class CommittedChange:
    """One change of a room, after the store took it (or, `stored` False, a change of presence only).

    - `room_id`, `version`: the room and its version after the change (unchanged when not stored);
    - `events`: the public events, in order (each seat's copy is checked by the outgoing filter);
    - `entries`: the entries appended to the room's event log;
    - `presence`: who arrived or departed (`{"arrived": seat}` / `{"departed": seat}`, seat None for a
      spectator), or None.
    """

    room_id: str
    version: int
    events: tuple[JSON, ...] = ()
    entries: tuple[JSON, ...] = ()
    presence: JSON | None = None
    stored: bool = True

    def to_json(self) -> JSON:
        """The change as a JSON object (for a publisher to other processes)."""
        return {"room_id": self.room_id, "version": self.version, "events": list(self.events),
                "entries": list(self.entries), "presence": self.presence, "stored": self.stored}

    @classmethod
    def from_json(cls, data: JSON) -> CommittedChange:
        """Back from `to_json`."""
        return cls(str(data["room_id"]), int(data["version"]), tuple(data["events"]), tuple(data["entries"]),
                   data.get("presence"), bool(data["stored"]))


class RoomListener:
    """What reacts to a room's changes. Every hook is optional; a listener reads the room (its
    `table`, its `members`) and never changes it except through `room.apply`.

    Order, for each change: every listener's `stored` (awaited, under the room's lock, before anyone
    hears of the change: e.g. the daily leaderboard), then every listener's `committed` (synchronous:
    pushes, timers, bots, lobby); `unconfirmed` instead when a write's outcome is unknown. `opened`
    runs once when a room is created or loaded into this process, `closed` when it is dropped or the
    server stops; `busy` keeps an idle room in memory.
    """

    async def stored(self, room: LiveRoom, change: CommittedChange) -> None:
        """After the store took the change, before anyone is told."""

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """After the change (tell the connections, arm timers, wake bots...)."""

    def unconfirmed(self, room: LiveRoom) -> None:
        """A write's outcome is unknown (the store stopped answering): the room's copy here may be
        behind the store until it is reloaded."""

    def opened(self, room: LiveRoom) -> None:
        """The room is now served by this process."""

    def closed(self, room: LiveRoom) -> None:
        """The room is no longer served here: release what the listener holds for it."""

    def busy(self, room: LiveRoom) -> bool:
        """Whether the listener still works for this room (it is not dropped from memory meanwhile)."""
        return False
