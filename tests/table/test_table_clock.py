"""The pure table core, the turn clock: whose clock runs and until when, what an expiry does, two in a
row hand the seat to the bot, the player's own action or `resume` takes it back, and the clock is
stored so that a reload or another process reads the same deadline."""

from __future__ import annotations

from dataclasses import replace

from table_helpers import TOKENS, new_table, participant

from server.table import Table, clock, facts, from_stored, play, seating, to_stored

WALL = 1_764_441_000.0  # Unix seconds, as the live room passes them
MONO = 1000.0  # monotonic seconds, for presence


def clocked_table(turn_seconds: float = 30.0, humans: int = 4) -> Table:
    """A started classic-whist table (no auction: every seat's turn comes round every trick) with a
    turn clock, `humans` humans on the first seats."""
    table = new_table("whist", turn_seconds=turn_seconds).table
    for seat in range(1, humans):
        table = seating.join(table, TOKENS[seat], f"P{seat}", seat).table
    table = seating.start(table, participant(0), "secret-1").table
    return clock.rearm(table, WALL)


def to_act(table: Table) -> int:
    assert table.session is not None
    return sorted(table.session.deal.to_act())[0]


def act_first_legal(table: Table, *, by_bot: bool = False) -> Table:
    assert table.session is not None
    seat = to_act(table)
    return play.act(table, seat, table.session.deal.legal_actions(seat)[0], by_bot=by_bot).table


def test_the_clock_runs_for_the_human_to_act_with_a_wall_clock_deadline() -> None:
    table = clocked_table(30.0)
    seat = to_act(table)
    assert table.clock is not None and table.clock.seat == seat and table.clock.deadline == WALL + 30.0
    assert facts.room_info(table, MONO)["clock"] == {"seat": seat, "deadline": WALL + 30.0}
    assert facts.room_info(table, MONO)["turn_seconds"] == 30.0


def test_no_clock_when_the_rule_is_off_or_a_bot_is_to_act() -> None:
    off = clocked_table(0.0)
    assert off.clock is None and facts.room_info(off, MONO)["clock"] is None
    lone = clocked_table(30.0, humans=1)  # seats 1-3 are bots
    while to_act(lone) == 0:
        lone = clock.rearm(act_first_legal(lone), WALL)
    assert lone.clock is None, "bots have no clock"


def test_rearming_the_same_turn_keeps_the_deadline_and_a_new_turn_restarts_it() -> None:
    table = clocked_table(30.0)
    first = table.clock
    assert clock.rearm(table, WALL + 20.0).clock == first, "a reload or a presence change keeps it"
    moved = clock.rearm(act_first_legal(table), WALL + 5.0)
    assert moved.clock is not None and moved.clock.deadline == WALL + 35.0 and moved.clock.turn != first.turn


def test_the_stored_table_reads_back_the_same_clock() -> None:
    table = clocked_table(30.0)
    expired = clock.turn_expired(table, to_act(table), WALL + 30.0).table
    again = from_stored(to_stored(expired), expired.version, ())
    assert again.options.turn_seconds == 30.0
    assert again.clock_misses == expired.clock_misses and again.clock_once == expired.clock_once
    assert from_stored(to_stored(table), 0, ()).clock == table.clock


def test_an_expiry_before_the_deadline_or_for_another_seat_changes_nothing() -> None:
    table = clocked_table(30.0)
    seat = to_act(table)
    early = clock.turn_expired(table, seat, WALL + 29.9)
    other = clock.turn_expired(table, (seat + 1) % 4, WALL + 31.0)
    for wrong in (early, other):
        assert wrong.table is table and not wrong.stored and wrong.events == []


def test_an_expiry_has_the_bot_play_one_action_then_the_clock_runs_for_the_next_player() -> None:
    table = clocked_table(30.0)
    seat = to_act(table)
    outcome = clock.turn_expired(table, seat, WALL + 30.0)
    assert outcome.stored and outcome.events == [{"type": "turn_expired", "seat": seat}]
    expired = outcome.table
    assert expired.clock is None and facts.bot_playing(expired, seat, MONO)
    assert facts.bot_work(expired, MONO) == seat
    after = act_first_legal(expired, by_bot=True)
    assert not facts.bot_playing(after, seat, MONO), "one action only"
    assert after.clock_misses == {seat: 1}
    rearmed = clock.rearm(after, WALL + 31.0)
    assert rearmed.clock is not None and rearmed.clock.seat == to_act(after)


def _expire_and_bot_plays(table: Table, wall: float) -> Table:
    seat = to_act(table)
    expired = clock.turn_expired(table, seat, wall)
    return clock.rearm(act_first_legal(expired.table, by_bot=True), wall)


def test_two_expiries_in_a_row_hand_the_seat_to_the_bot_until_the_player_resumes() -> None:
    table = clocked_table(10.0)
    seat = to_act(table)
    table = _expire_and_bot_plays(table, WALL + 10.0)
    while to_act(table) != seat:  # the other players act themselves
        table = clock.rearm(act_first_legal(table), WALL + 11.0)
    assert table.clock is not None and table.clock.seat == seat
    outcome = clock.turn_expired(table, seat, table.clock.deadline)
    assert {"type": "bot_took_over", "seat": seat, "reason": "clock"} in outcome.events
    taken = clock.rearm(act_first_legal(outcome.table, by_bot=True), WALL + 30.0)
    assert seat in taken.clock_takeover and facts.bot_playing(taken, seat, MONO)
    assert facts.room_info(taken, MONO)["seats"][seat]["bot_playing"] is True
    back = seating.resume(taken, TOKENS[seat])
    assert back.stored and back.events == [{"type": "player_returned", "seat": seat, "reason": "clock"}]
    assert not facts.bot_playing(back.table, seat, MONO) and back.table.clock_misses == {}


def test_the_players_own_action_resets_the_count() -> None:
    table = clocked_table(10.0)
    seat = to_act(table)
    table = _expire_and_bot_plays(table, WALL + 10.0)
    assert table.clock_misses == {seat: 1}
    while to_act(table) != seat:
        table = clock.rearm(act_first_legal(table), WALL + 11.0)
    mine = act_first_legal(table)  # the player acts in time
    assert mine.clock_misses == {}


def test_a_resume_with_no_takeover_only_claims_the_seat() -> None:
    table = clocked_table(10.0)
    outcome = seating.resume(table, TOKENS[1])
    assert outcome.events == [] and outcome.table.claims == (0, 1, 0, 0)
    assert outcome.table.clock == table.clock and outcome.table.clock_takeover == table.clock_takeover


def test_a_presence_arrival_does_not_end_a_clock_takeover() -> None:
    from server.table import presence

    table = clocked_table(10.0)
    taken = replace(table, clock_takeover=frozenset({1}))
    arrived = presence.arrive(taken, participant(1), MONO)
    assert arrived.events == [] and facts.bot_playing(arrived.table, 1, MONO)


def test_a_seat_the_clock_gave_the_bot_does_not_hold_the_next_deal() -> None:
    from server.table import presence

    table = clocked_table(10.0, humans=2)
    for seat in (0, 1):
        table = presence.arrive(table, participant(seat), MONO).table
    assert table.session is not None
    while not table.session.deal.finished:
        table = act_first_legal(table)
    table = play.ready(table, participant(0)).table
    assert not facts.everyone_ready(table), "seat 1 is here and not ready"
    taken = replace(table, clock_takeover=frozenset({1}))
    assert facts.everyone_ready(taken), "the bot plays seat 1: only seat 0 was awaited"
    assert facts.bot_work(taken, MONO) == facts.NEXT_DEAL


def finished_deal(turn_seconds: float = 10.0, humans: int = 3) -> Table:
    """A clocked table whose first deal has just ended, its humans connected."""
    from server.table import presence

    table = clocked_table(turn_seconds, humans=humans)
    for seat in range(humans):
        table = presence.arrive(table, participant(seat), MONO).table
    assert table.session is not None
    while not table.session.deal.finished:
        table = act_first_legal(table)
    return table


def test_between_deals_the_clock_runs_for_the_first_human_not_yet_ready() -> None:
    table = clock.rearm(finished_deal(10.0), WALL)
    assert table.clock is not None and table.clock.seat == 0 and table.clock.deadline == WALL + 10.0
    assert facts.room_info(table, MONO)["clock"] == {"seat": 0, "deadline": WALL + 10.0}


def test_between_deals_a_ready_player_hands_the_same_deadline_to_the_next_one() -> None:
    table = clock.rearm(finished_deal(10.0), WALL)
    table = clock.rearm(play.ready(table, participant(0)).table, WALL + 4.0)
    assert table.clock is not None and table.clock.seat == 1 and table.clock.deadline == WALL + 10.0
    for seat in (1, 2):
        table = clock.rearm(play.ready(table, participant(seat)).table, WALL + 5.0)
    assert table.clock is None, "everyone is ready: no clock"
    assert facts.bot_work(table, MONO) == facts.NEXT_DEAL


def test_when_the_pause_runs_out_every_connected_human_counts_as_ready_and_the_deal_is_dealt() -> None:
    table = clock.rearm(play.ready(clock.rearm(finished_deal(10.0), WALL), participant(1)).table, WALL)
    assert table.clock is not None and table.clock.seat == 0
    assert facts.bot_work(table, MONO) is None, "seats 0 and 2 are here and not ready"
    early = clock.turn_expired(table, 0, WALL + 9.0)
    assert early.table is table and not early.stored
    expired = clock.turn_expired(table, 0, WALL + 10.0)
    assert expired.stored and expired.events == [{"type": "ready_expired", "seats": [0, 2]}]
    assert expired.table.ready == frozenset({0, 1, 2}) and expired.table.clock is None
    assert expired.table.clock_misses == {}, "a pause that ran out is not a missed turn"
    assert facts.bot_work(expired.table, MONO) == facts.NEXT_DEAL
    dealt = clock.rearm(play.next_deal(expired.table).table, WALL + 10.0)
    assert dealt.clock is not None and dealt.clock.turn[1] == 0, "the next deal's first turn is clocked anew"


def test_no_pause_clock_when_the_rule_is_off_or_the_session_is_over() -> None:
    assert clock.rearm(finished_deal(0.0), WALL).clock is None
    table = finished_deal(10.0)
    ended = replace(table, ended=True)
    assert clock.rearm(ended, WALL).clock is None
