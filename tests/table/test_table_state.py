"""The table's state and its stored form (server/table/state.py): a table stored and read back with its
log is the same table (presence is not stored), `advance` moves a copy on by another process's change
without touching the table it was given, and a forked session is independent of the original."""

from __future__ import annotations

from table_helpers import participant, seated_table

from server.table import Outcome, Table, advance, from_stored, play, presence, seating, to_stored
from server.table.state import Presence, fork_session


def logged_start() -> tuple[Table, list[dict[str, object]]]:
    """A started table (two humans, two bots) and the log entries of its start."""
    outcome = seating.start(seated_table(2), participant(0), "secret-1")
    return outcome.table, list(outcome.entries)


def one_move(table: Table) -> Outcome:
    """The first legal action of the seat to act."""
    assert table.session is not None
    seat = min(table.session.deal.to_act())
    return play.act(table, seat, table.session.deal.view(seat)["legal"][0])


def views(table: Table) -> list[object]:
    assert table.session is not None
    return [table.session.deal.view(seat) for seat in (None, 0, 1, 2, 3)]


def test_a_stored_table_read_back_with_its_log_is_the_same_table() -> None:
    table, log = logged_start()
    for _ in range(3):
        outcome = one_move(table)
        table, log = outcome.table, [*log, *outcome.entries]
    again = from_stored(to_stored(table), 7, log)
    assert again.version == 7
    assert again.seats == table.seats and again.options == table.options and again.host == table.host
    assert views(again) == views(table)
    assert to_stored(again) == to_stored(table)


def test_presence_is_not_stored() -> None:
    table, log = logged_start()
    here = presence.arrive(presence.arrive(table, participant(0), 1000.0).table, None, 1000.0).table
    assert here.presence != table.presence
    assert from_stored(to_stored(here), 1, log).presence == Presence({}, 0, {})


def test_advance_moves_a_copy_on_by_a_change_made_elsewhere() -> None:
    table, _ = logged_start()
    before = views(table)
    outcome = one_move(table)
    moved = advance(table, to_stored(outcome.table), table.version + 1, outcome.entries)
    assert views(moved) == views(outcome.table)
    assert moved.version == table.version + 1
    assert views(table) == before, "the table it was given is unchanged"


def test_a_forked_session_is_independent() -> None:
    table, _ = logged_start()
    assert table.session is not None
    fork = fork_session(table.session)
    seat = min(fork.deal.to_act())
    fork.deal.apply(seat, fork.deal.view(seat)["legal"][0])
    assert fork.deal.view(None) != table.session.deal.view(None)
    assert table.session.deal.to_act() == {seat}
