"""The pure table core, "Play again": a new session at the same table once every seated human asks,
the same seats and options, and the earlier sessions' deal records kept (log replay included)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from table_helpers import TOKENS, new_table, participant

from server.table import (
    Daily,
    Table,
    advance,
    errors,
    facts,
    from_stored,
    play,
    presence,
    records_from_log,
    seating,
    to_stored,
)


def finished_table(humans: int, entries: list[dict[str, object]]) -> Table:
    """A one-deal classic-whist session played to its end by first legal actions, humans connected."""
    outcome = new_table("whist", deals=1)
    entries.extend(outcome.entries)
    table = outcome.table
    for seat in range(1, humans):
        outcome = seating.join(table, TOKENS[seat], f"P{seat}", seat)
        entries.extend(outcome.entries)
        table = outcome.table
    for seat in range(humans):
        table = presence.arrive(table, participant(seat), 1000.0).table
    outcome = seating.start(table, participant(0), "secret-1")
    entries.extend(outcome.entries)
    table = outcome.table
    assert table.session is not None
    while not facts.over(table):
        seat = sorted(table.session.deal.to_act())[0]
        outcome = play.act(table, seat, table.session.deal.legal_actions(seat)[0])
        entries.extend(outcome.entries)
        table = outcome.table
    return table


def test_it_starts_when_every_seated_human_has_asked_and_bots_stay() -> None:
    entries: list[dict[str, object]] = []
    over = finished_table(2, entries)
    first = play.play_again(over, participant(1), "secret-2")
    assert first.answer == {"started": False, "waiting_for": [0]} and facts.over(first.table)
    assert first.events == [{"type": "play_again", "seat": 1, "waiting_for": [0]}]
    assert facts.room_info(first.table, 1000.0)["play_again"] == [1]
    again = play.play_again(first.table, participant(0), "secret-2")
    new = again.table
    assert again.answer["started"] and not facts.over(new) and new.session is not None
    assert [s.kind for s in new.seats] == ["human", "human", "bot", "bot"]
    assert new.options == over.options and new.session.deal_number == 0
    assert {"type": "session_started"} in again.events
    assert len(new.past_records) == 1, "the first session's deal is kept"
    assert (over.session_number, new.session_number) == (0, 1), "each session of the room has its number"


def test_the_log_replays_both_sessions_and_keeps_every_record() -> None:
    entries: list[dict[str, object]] = []
    over = finished_table(1, entries)
    again = play.play_again(over, participant(0), "secret-2")
    entries.extend(again.entries)
    table = again.table
    assert table.session is not None
    seat = sorted(table.session.deal.to_act())[0]
    played = play.act(table, seat, table.session.deal.legal_actions(seat)[0])
    entries.extend(played.entries)
    loaded = from_stored(to_stored(played.table), 9, entries)  # type: ignore[arg-type]
    assert loaded.session is not None and len(loaded.session.deal.log) == 1
    assert loaded.past_records == played.table.past_records
    assert loaded.session_number == 1, "the session's number comes back from the log"
    heard = advance(over, to_stored(again.table), over.version + 1, again.entries)
    assert heard.session_number == 1, "and from another process's play again"
    assert from_stored(to_stored(over), 5, entries[:len(entries) - len(again.entries) - len(played.entries)]
                       ).session_number == 0  # type: ignore[arg-type]
    records = records_from_log(entries)  # type: ignore[arg-type]
    assert records == list(again.table.past_records) and len(records) == 1, "the finished deal, once"


def test_refused_before_the_end_by_a_spectator_or_in_a_daily_room() -> None:
    entries: list[dict[str, object]] = []
    started = seating.start(new_table("whist").table, participant(0), "s").table
    with pytest.raises(errors.SessionNotOver):
        play.play_again(started, participant(0), "s2")
    over = finished_table(1, entries)
    with pytest.raises(errors.NotSeated):
        play.play_again(over, None, "s2")
    with pytest.raises(errors.DailyRoom):
        play.play_again(replace(over, daily=Daily("2026-12-03", "Ann")), participant(0), "s2")
