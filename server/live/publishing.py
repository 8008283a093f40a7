"""What this process tells the others about its rooms (the `Publisher` sends it, in order).

Every change committed here (stored, or presence only) is published on the room's channel with the
stored state it wrote, and a change of presence with this process's connections there (`here`). When
the room's last publication reached no other process, nothing more is published (no PUBLISH, and none
read back by its own subscriber) until a process that starts to follow the room says so
(`subscribed`, sent before it reloads); the answer is a note of the version here, so a change
committed before the newcomer was heard is either in what it reloaded or announced by that note. After
the subscriber reconnects (a newcomer's word may be lost), every room publishes again, and the process
says `subscribed` again on every room it follows (another process may have gone silent while this
subscriber was away: after a Redis failover, whichever subscriber is back first publishes to nobody).
A change heard from another process (`CommittedChange.received`) is never published again.
"""

from __future__ import annotations

from ..coord import SPECTATOR, Fanout
from ..table import to_stored
from .background import Background
from .change import JSON, CommittedChange
from .presence import here
from .publisher import Publisher, SeatChange
from .room import LiveRoom, RoomListener


class Publishing(RoomListener):
    """Decides what each change committed here tells the other processes."""

    def __init__(self, process_id: str, publisher: Publisher, fanout: Fanout, background: Background) -> None:
        self.process_id = process_id
        self.publisher = publisher
        self.fanout = fanout  # says whether anybody else follows a room, and which rooms are followed here
        self.background = background

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """Publish a change committed here (not one received from another process)."""
        if change.received or not self.background.running:
            return
        if not change.stored and change.presence is None and not change.events:
            return  # a reload here, nothing of this process's to tell
        seat_change: SeatChange | None = None
        if change.presence is not None:
            for kind in ("arrived", "departed"):
                if kind in change.presence:
                    seat = change.presence[kind]
                    seat_change = (kind, SPECTATOR if seat is None else int(seat))
        payload: JSON
        if self.fanout.alone(room.room_id) or self._unheard(room.room_id):
            # Nobody else follows the room (and a process that starts to will say so: "subscribed", see
            # `answer_newcomer`): no PUBLISH, and none read back; only the presence to share.
            payload = {}
        elif self.publisher.others_reached(room.room_id) == 0:
            # Nobody else heard the last one, and this process does not follow the room's channel, so
            # it would not hear a newcomer: a note of the version only. A process that subscribed
            # meanwhile finds no state in it and reloads from the store.
            note = CommittedChange(room.room_id, change.version, presence=change.presence,
                                   stored=change.stored)
            payload = {"change": note.to_json()}
        else:
            payload = {"change": change.to_json()}
            if change.stored:
                payload["state"] = to_stored(room.table)
        if change.presence is not None and payload:
            payload["here"] = here(room)
        if payload or seat_change is not None:
            self.publisher.send(room.room_id, payload, seat_change)

    def closed(self, room: LiveRoom) -> None:
        """The room left this process's memory: who heard it last is forgotten."""
        self.publisher.forget(room.room_id)

    # ---------------------------------------------------------------- the other messages

    def following(self, room_id: str) -> None:
        """This process starts to follow the room: tell a process that publishes nothing because
        nobody listened to publish again (it answers with its version: `answer_newcomer`)."""
        self.publisher.send(room_id, {"subscribed": self.process_id})

    def answer_newcomer(self, room: LiveRoom) -> None:
        """A process starts to follow the room: publish every change again, starting with a note of
        the version here now."""
        self.publisher.forget(room.room_id)
        note = CommittedChange(room.room_id, room.version, stored=True)
        self.publisher.send(room.room_id, {"change": note.to_json(), "here": here(room)})

    def released(self, room_id: str) -> None:
        """This process gave the room's lease up: the others may claim it at once."""
        if not self.fanout.alone(room_id):
            self.publisher.send(room_id, {"released": self.process_id})

    def caught_up(self, room: LiveRoom, seen: JSON) -> None:
        """The room was caught up here: the others learn where this process's connections are."""
        if not self.fanout.alone(room.room_id):
            empty = CommittedChange(room.room_id, room.version, presence={}, stored=False)
            self.publisher.send(room.room_id, {"change": empty.to_json(), "here": seen})

    def everyone_again(self) -> None:
        """The subscriber was away (a newcomer's word may be lost): every room publishes again."""
        self.publisher.forget()

    def _unheard(self, room_id: str) -> bool:
        """Whether this process's last publication on the room reached no other process and none has
        said since that it follows the room (this process follows it, so it would have heard)."""
        return self.publisher.others_reached(room_id) == 0 and room_id in self.fanout.rooms
