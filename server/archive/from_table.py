"""A live table as the archive keeps it: what the owner of a room hands to `Archive.write_session`
once the session has ended or the room has been left (pure: no I/O)."""

from __future__ import annotations

from collections.abc import Mapping

from ..table.state import Table, deal_records
from .model import ArchivedSession, SeatEntry


def session_id(room_id: str, number: int) -> str:
    """The archive's id of a room's session `number` (0-based: how many the table played before it):
    the room id for the first, `<room id>.<n>` for the n-th after a "play again" (`room.2`, `room.3`...),
    so that each session is written once and no two share an id."""
    return room_id if number == 0 else f"{room_id}.{number + 1}"


def archived_session(table: Table, players: Mapping[int, str], ended_at: float) -> ArchivedSession:
    """The table's session with its finished deals, the records exactly as `get_records` answers
    them (hints included); its id is `session_id(room, table.session_number)`. `players`: seat ->
    hashed player key of each human seat whose connection gave one (the other humans are anonymous).
    A bot seat is archived by its level (the seat's bot kind, else the room's). Raises `ValueError`
    for a table whose session never started."""
    if table.session is None:
        raise ValueError(f"room {table.room_id}: the session never started, there is nothing to archive")
    options = table.options
    seats = []
    for number, seat in enumerate(table.seats):
        if seat.kind == "bot":
            seats.append(SeatEntry("bot", seat.name, None, seat.bot or options.bot))
        elif seat.kind == "human":
            seats.append(SeatEntry("human", seat.name, players.get(number)))
        else:
            seats.append(SeatEntry("empty"))
    extra = {"name": options.name, "listed": options.listed, "bot": options.bot,
             "session_length": {"deals": options.deals, "target": options.target},
             "grace_seconds": options.grace_seconds}
    if table.daily is not None:
        extra["daily"] = {"day": table.daily.day, "player": table.daily.player,
                          "practice": table.daily.practice}
    return ArchivedSession.build(
        session_id=session_id(table.room_id, table.session_number), room_id=table.room_id,
        ruleset=options.ruleset,
        house_rules=dict(table.session.house_rules), options=extra, seats=seats,
        balances=table.session.balances, started_at=table.created_at, ended_at=ended_at,
        records=deal_records(table.session, table.hints), complete=table.session.over)
