"""The outgoing filter and the room's pushes: every `state` and `events` push to a connection of a
room passes through `filter_for_recipient`, which asks the visibility authority
(`server/rules/visibility.py`) and decides nothing of its own."""

from __future__ import annotations

import logging
import time

from ..rules import Deal, visibility
from ..rules import views as seat_views
from ..table import Table, facts
from .change import JSON, CommittedChange
from .room import LiveRoom, Member, RoomListener

log = logging.getLogger("whist.rooms")

class Views:
    """The views of one broadcast, built once each (spectators share one) from one public part
    (`views.public_view`: the calls, tricks, contract... every seat sees alike). They are only encoded
    and sent, never changed."""

    def __init__(self) -> None:
        self.public: JSON | None = None
        self.by_seat: dict[int | None, JSON] = {}

    def view(self, deal: Deal, seat: int | None) -> JSON:
        """The view of `seat` (None: a spectator)."""
        view = self.by_seat.get(seat)
        if view is None:
            if self.public is None:
                self.public = seat_views.public_view(deal)
            view = self.by_seat[seat] = seat_views.view_from(self.public, deal, seat)
        return view


def filter_for_recipient(table: Table, seat: int | None, host: bool, message: JSON,
                         views: Views | None = None) -> JSON | None:
    """THE per-recipient filter.

    A `state` message gets the recipient's own view (the seat's view, or the public one), built here
    and nowhere else (`views` keeps them during one broadcast). Any other message goes out only if the
    visibility authority finds in it no card hidden from the recipient; one that would reveal one is
    dropped (and logged as a bug) instead of sent.
    """
    deal = table.session.deal if table.session is not None else None
    if message.get("type") == "state":
        view: JSON | None = None
        if deal is not None:
            view = views.view(deal, seat) if views is not None else deal.view(seat)
        return {"type": "state", "room_id": table.room_id,
                "you": {"seat": seat, "host": host, "spectator": seat is None},
                "room": message["room"], "view": view}
    if deal is not None and visibility.events_for(deal, seat, message.get("events", [])) is None:
        log.error("dropped a %s message to seat %s: it names a hidden card", message.get("type"), seat)
        return None
    return message


class Outbox(RoomListener):
    """Pushes each committed change to the room's connections: its events (if any), then a `state`.

    A connection whose `resume` is under way (`hold`) is sent events but no `state` until it is
    admitted under the token (`release`), so that its first `state` after the request is the seat's
    view: the resume's own change, and a move to the rail racing with it, would otherwise reach a
    connection that watches the room (e.g. moved to the rail by a newer connection) as a
    spectator's view, with no hand and no legal moves."""

    def __init__(self) -> None:
        self._held: set[Member] = set()
        self._skipped: set[Member] = set()  # held connections a state was not sent to

    def hold(self, member: Member) -> None:
        """Send the connection no `state` until `release`."""
        self._held.add(member)

    def release(self, member: Member) -> bool:
        """End `hold`; True if a `state` was not sent meanwhile (the caller sends a fresh one, or
        admits the connection, which does)."""
        self._held.discard(member)
        skipped = member in self._skipped
        self._skipped.discard(member)
        return skipped

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """Tell every connection of the room."""
        self.broadcast(room, list(change.events))

    def broadcast(self, room: LiveRoom, events: list[JSON]) -> None:
        """Push the events (if any) and then a fresh `state` to every connection in the room."""
        table = room.table
        info = facts.room_info(table, time.monotonic())
        deal_number = facts.current_deal_index(table.session) if table.session else 0
        message = ({"type": "events", "room_id": table.room_id, "deal_number": deal_number, "events": events}
                   if events else None)
        views = Views()
        for member in list(room.members):
            held = member in self._held
            if held:
                self._skipped.add(member)
            self.send(room, member, message, info, views, state=not held)

    def send(self, room: LiveRoom, member: Member, events: JSON | None = None, info: JSON | None = None,
             views: Views | None = None, state: bool = True) -> None:
        """Push events (optional) and the state (unless `state` is false) to one connection, through
        the filter."""
        table = room.table
        participant = room.members.get(member)
        seat = facts.seat_of(table, participant)
        host = facts.is_host(table, participant)
        if events is not None and member.wants_events:
            filtered = filter_for_recipient(table, seat, host, events)
            if filtered is not None:
                member.push(filtered)
        if not state:
            return
        room_facts = info if info is not None else facts.room_info(table, time.monotonic())
        view = filter_for_recipient(table, seat, host, {"type": "state", "room": room_facts}, views)
        if view is not None:
            member.push(view)
