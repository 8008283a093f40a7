"""The committed change a live room hands to its listeners (the hooks are `RoomListener`, beside the
room in `server/live/room.py`).

A `CommittedChange` is plain data (JSON-serialisable with `to_json`): what a publisher needs to send
a room's change to other processes, and what every listener of this process reacts to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
    received: bool = False  # made by another process and heard here (not to be published again)

    def to_json(self) -> JSON:
        """The change as a JSON object (for a publisher to other processes)."""
        return {"room_id": self.room_id, "version": self.version, "events": list(self.events),
                "entries": list(self.entries), "presence": self.presence, "stored": self.stored}

    @classmethod
    def from_json(cls, data: JSON) -> CommittedChange:
        """Back from `to_json`."""
        return cls(str(data["room_id"]), int(data["version"]), tuple(data["events"]), tuple(data["entries"]),
                   data.get("presence"), bool(data["stored"]))
