"""The pure table core, presence: connections arrive and depart, grace periods end (never stored)."""

from __future__ import annotations

from table_helpers import participant, started_table

from server.table import facts, presence


def test_a_player_back_after_the_grace_period_is_announced() -> None:
    # The connection used to be counted before asking whether a bot played the seat.
    table = presence.away_from_start(started_table(4), now=0.0)
    grace = table.options.grace_seconds
    assert facts.bot_playing(table, 2, now=grace + 1)
    back = presence.arrive(table, participant(2), now=grace + 1)
    assert back.events == [{"type": "player_returned", "seat": 2}] and not back.stored
    assert facts.connected(back.table, 2) and not facts.bot_playing(back.table, 2, now=grace + 1)


def test_a_player_back_within_the_grace_period_is_not_announced() -> None:
    table = presence.away_from_start(started_table(4), now=0.0)
    assert presence.arrive(table, participant(1), now=1.0).events == []


def test_departing_starts_the_grace_period_and_the_bot_takes_over_after_it() -> None:
    table = presence.arrive(started_table(4), participant(3), now=0.0).table
    gone = presence.depart(table, participant(3), now=5.0)
    assert gone.presence == {"departed": 3} and gone.table.presence.away_since[3] == 5.0
    grace = table.options.grace_seconds
    assert presence.grace_expired(gone.table, 3, now=5.0 + grace / 2).events == []
    took_over = presence.grace_expired(gone.table, 3, now=5.0 + grace)
    assert took_over.events == [{"type": "bot_took_over", "seat": 3}]


def test_two_connections_of_one_player_keep_the_seat_until_both_are_gone() -> None:
    table = started_table(4)
    for _ in range(2):
        table = presence.arrive(table, participant(1), now=0.0).table
    table = presence.depart(table, participant(1), now=1.0).table
    assert facts.connected(table, 1) and 1 not in table.presence.away_since
    table = presence.depart(table, participant(1), now=2.0).table
    assert not facts.connected(table, 1)


def test_spectators_are_counted() -> None:
    table = started_table(4)
    table = presence.arrive(table, None, now=0.0).table
    table = presence.arrive(table, None, now=0.0).table
    assert facts.room_info(table, 0.0)["spectators"] == 2
    table = presence.depart(table, None, now=1.0).table
    assert table.presence.spectators == 1
