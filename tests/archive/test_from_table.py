"""A live table handed to the archive: its records exactly as `get_records` answers them."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from server.archive import SeatEntry, player_hash
from server.archive.from_table import archived_session, session_id
from server.rules import Session
from server.table import deal_records
from server.table.state import Daily, Hint, Options, Seat, Table

OPTIONS = Options(name="Friday", ruleset="couleur", house_rules={}, listed=True, bot="basic", deals=4,
                  target=None, grace_seconds=60.0)


def played(deals: int, stop_after: int | None = None) -> Session:
    rng = random.Random(deals)
    session = Session("couleur", "table-secret", deals=deals)
    while True:
        while not session.deal.finished:
            seat = min(session.deal.to_act())
            session.apply(seat, rng.choice(session.deal.legal_actions(seat)))
        if session.over or len(session.history) == stop_after:
            return session
        session.next_deal()


def table(session: Session | None) -> Table:
    seats = (Seat("human", "ann", "p-ann"), Seat("bot", "basic bot"), Seat("human", "guest", "p-guest"),
             Seat("bot", "expert bot", None, "expert"))
    return Table("room-7", OPTIONS, 1234.5, "p-ann", seats, ended=True, session=session,
                 hints=(Hint(0, 0, 2),))


def test_a_finished_table_is_archived_with_its_records_seats_and_balances() -> None:
    live = table(played(4))
    archived = archived_session(live, {0: player_hash("key-ann")}, ended_at=2000.0)
    assert archived.records() == deal_records(live.session, live.hints)
    assert archived.records()[0]["hints"] == [[0, 2]]
    assert archived.seats == (SeatEntry("human", "ann", player_hash("key-ann")),
                              SeatEntry("bot", "basic bot", None, "basic"), SeatEntry("human", "guest"),
                              SeatEntry("bot", "expert bot", None, "expert"))
    assert live.session is not None and list(archived.balances) == live.session.balances
    assert (archived.session_id, archived.room_id, archived.started_at, archived.ended_at) == (
        "room-7", "room-7", 1234.5, 2000.0)
    assert archived.complete and archived.options["session_length"] == {"deals": 4, "target": None}


def test_each_session_of_a_room_played_again_has_its_own_id() -> None:
    first, second, third = (archived_session(replace(table(played(4)), session_number=n), {}, 2000.0)
                            for n in (0, 1, 2))
    assert (first.session_id, second.session_id, third.session_id) == ("room-7", "room-7.2", "room-7.3")
    assert {first.room_id, second.room_id, third.room_id} == {"room-7"}
    assert session_id("room-7", 0) == "room-7"


def test_a_session_stopped_early_is_archived_incomplete() -> None:
    archived = archived_session(table(played(6, stop_after=2)), {}, ended_at=2000.0)
    assert not archived.complete and len(archived.deals) == 2


def test_a_daily_room_keeps_its_day_and_a_table_never_started_is_refused() -> None:
    daily = replace(table(played(4)), daily=Daily("2026-12-03", "ann"))
    assert archived_session(daily, {}, 1.0).options["daily"] == {"day": "2026-12-03", "player": "ann",
                                                                 "practice": False}
    with pytest.raises(ValueError, match="never started"):
        archived_session(table(None), {}, 1.0)
