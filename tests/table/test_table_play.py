"""The pure table core, play commands: act, ready, next deal, end, hint; a whole deal by all four
seats, with what a spectator may and may not do."""

from __future__ import annotations

from dataclasses import replace

import pytest
from table_helpers import participant, seated_table, started_table

from server.table import (
    Daily,
    Table,
    deal_records,
    errors,
    facts,
    from_stored,
    play,
    records_from_log,
    to_stored,
)
from server.table import presence as presence_commands


def play_deal(table: Table, entries: list[dict[str, object]]) -> Table:
    """Every seat plays its first legal action until the deal ends (collecting the log entries)."""
    assert table.session is not None
    while not table.session.deal.finished:
        (seat,) = sorted(table.session.deal.to_act())[:1]
        action = table.session.deal.legal_actions(seat)[0]
        outcome = play.act(table, seat, action)
        entries.extend(outcome.entries)
        table = outcome.table
        assert table.session is not None
    return table


def test_four_humans_play_a_deal_and_the_log_replays_to_the_same_table() -> None:
    start = started_table(4)
    assert start.session is not None
    entries: list[dict[str, object]] = [{"t": "started", "config": start.session.config()}]
    table = play_deal(start, entries)
    assert table.session is not None and table.session.deal.finished
    assert start.session is not None and not start.session.deal.finished, "the first table is untouched"
    assert facts.status(table) == "between_deals"
    rebuilt = from_stored(to_stored(table), 5, entries)
    assert rebuilt.session is not None
    assert rebuilt.session.balances == table.session.balances
    assert records_from_log(entries) == deal_records(table.session, ())


def test_acting_out_of_turn_or_illegally_is_refused_and_changes_nothing() -> None:
    table = started_table(4)
    assert table.session is not None
    deal = table.session.deal
    (turn,) = sorted(deal.to_act())[:1]
    other = (turn + 1) % 4
    log_length = len(deal.log)
    with pytest.raises(errors.NotYourTurn):
        play.act(table, other, "pass")
    with pytest.raises(errors.MalformedAction):
        play.act(table, turn, "dance")
    with pytest.raises(errors.IllegalAction):
        play.act(table, turn, "trump H")  # well-formed, but no trump is named during the auction
    assert len(table.session.deal.log) == log_length


def test_a_spectator_may_not_act_nor_ask_for_a_hint_nor_be_ready() -> None:
    table = started_table(4)
    with pytest.raises(errors.SpectatorCannotAct):
        play.acting_seat(table, None, None)
    with pytest.raises(errors.SpectatorCannotAct):
        play.hint(table, None)
    with pytest.raises(errors.NotSeated):
        play.ready(table, None)
    with pytest.raises(errors.NotYourSeat):
        play.acting_seat(table, participant(1), 2)
    assert play.acting_seat(table, participant(1), 1) == 1


def test_the_next_deal_waits_for_every_connected_human() -> None:
    table = play_deal(started_table(2), [])
    now = 10.0
    for seat in (0, 1):
        table = presence_commands.arrive(table, participant(seat), now).table
    assert facts.bot_work(table, now) is None
    answer = play.ready(table, participant(0))
    assert answer.answer == {"ready": [0], "waiting_for": [1]}
    table = play.ready(answer.table, participant(1)).table
    assert facts.bot_work(table, now) == facts.NEXT_DEAL
    dealt = play.next_deal(table)
    assert dealt.answer == {"deal_number": 1} and dealt.table.ready == frozenset()
    with pytest.raises(errors.DealInProgress):
        play.ready(dealt.table, participant(0))


def test_end_is_for_the_host_and_ends_the_session() -> None:
    table = started_table(4)
    with pytest.raises(errors.NotHost):
        play.end(table, participant(2))
    ended = play.end(table, participant(0))
    assert facts.over(ended.table) and ended.events == [{"type": "game_ended", "balances": [0, 0, 0, 0]}]
    with pytest.raises(errors.SessionOver):
        play.act(ended.table, 0, "pass")


def test_an_abandoned_room_ends_as_it_stands_and_says_why() -> None:
    with pytest.raises(errors.NotStarted):
        play.abandon(seated_table(4))
    table = started_table(4)
    abandoned = play.abandon(table)
    assert facts.over(abandoned.table) and not facts.over(table)
    assert abandoned.events == [{"type": "game_ended", "balances": [0, 0, 0, 0], "reason": "abandoned"}]
    assert abandoned.entries == [{"t": "ended", "balances": [0, 0, 0, 0], "reason": "abandoned"}]
    with pytest.raises(errors.SessionOver):
        play.abandon(abandoned.table)


def test_before_the_start_nothing_is_played() -> None:
    with pytest.raises(errors.NotStarted):
        play.act(seated_table(4), 0, "pass")


def test_a_hint_is_one_of_the_seats_legal_actions_and_is_logged() -> None:
    table = started_table(4)
    assert table.session is not None
    (seat,) = sorted(table.session.deal.to_act())[:1]
    outcome = play.hint(table, participant(seat))
    assert outcome.answer["bot"] == "heuristic"
    assert outcome.answer["action"] in table.session.deal.legal_actions(seat)
    (entry,) = outcome.entries
    assert entry == {"t": "hint", "deal": 0, "seat": seat, "action_index": 0,
                     "action": outcome.answer["action"]}
    assert outcome.table.hints[-1].seat == seat and outcome.events == []
    # Another seat is not to act: no hint for it.
    with pytest.raises(errors.NotYourTurn):
        play.hint(table, participant((seat + 1) % 4))


def test_a_hint_depends_on_the_seats_own_view_only() -> None:
    table = started_table(4)
    assert table.session is not None
    (seat,) = sorted(table.session.deal.to_act())[:1]
    first = play.hint(table, participant(seat)).answer
    assert play.hint(table, participant(seat)).answer == first, "the same view gives the same hint"


def test_hints_are_marked_on_the_deal_record() -> None:
    table = started_table(4)
    assert table.session is not None
    (seat,) = sorted(table.session.deal.to_act())[:1]
    hinted = play.hint(table, participant(seat))
    entries: list[dict[str, object]] = [{"t": "started", "config": table.session.config()}, *hinted.entries]
    finished = play_deal(hinted.table, entries)
    (record,) = deal_records(finished.session, finished.hints)
    assert record["hints"] == [[seat, 0]]
    assert records_from_log(entries) == [record]


def test_a_daily_room_gives_no_hints() -> None:
    table = replace(started_table(1), daily=Daily("2026-11-29", "Ann"))
    with pytest.raises(errors.HintsOff):
        play.hint(table, participant(0))


@pytest.mark.parametrize("practice", [False, True])
def test_a_daily_rooms_practice_mark_is_stored_and_shown(practice: bool) -> None:
    table = replace(started_table(1), daily=Daily("2026-11-29", "Ann", practice))
    again = from_stored(to_stored(table), table.version, [])
    assert again.daily == Daily("2026-11-29", "Ann", practice)
    assert facts.room_info(again, 0.0)["practice"] is practice
    assert facts.room_info(replace(table, daily=None), 0.0)["practice"] is False
