"""The pure table core, seating commands: create, join, resume, watch, leave, add and remove a bot,
start. Each command returns a new table and leaves the one it was given as it was."""

from __future__ import annotations

import pytest
from table_helpers import HOST_TOKEN, TOKENS, new_table, participant, seated_table, started_table

from server.table import errors, facts, from_stored, hash_token, seating, to_stored


def test_create_makes_the_creator_host_and_seats_them() -> None:
    outcome = new_table()
    table = outcome.table
    assert outcome.answer == {"room_id": "room1", "token": HOST_TOKEN, "seat": 0, "host": True}
    assert table.host == hash_token(HOST_TOKEN) and table.seats[0].kind == "human"
    assert [seat.kind for seat in table.seats[1:]] == ["empty"] * 3
    (entry,) = outcome.entries
    assert entry["t"] == "created" and "session" not in entry["room"]
    assert HOST_TOKEN not in str(to_stored(table)), "only the token's hash is stored"
    assert facts.status(table) == "waiting" and facts.free_seats(table) == [1, 2, 3]


@pytest.mark.parametrize(("options", "error"), [
    ({"ruleset": "bridge"}, errors.UnknownRuleset),
    ({"house_rules": {"no_such_rule": True}}, errors.BadHouseRules),
    ({"bot": "oracle"}, errors.UnknownBot),
])
def test_create_refuses_bad_options(options: dict[str, object], error: type[errors.TableError]) -> None:
    ruleset = str(options.pop("ruleset", "solo-whist"))
    with pytest.raises(error):
        new_table(ruleset, **options)


def test_all_four_seats_join_in_turn_then_the_room_is_full() -> None:
    table = seated_table(4)
    assert [seat.name for seat in table.seats] == ["Ann", "P1", "P2", "P3"]
    assert [facts.seat_of(table, participant(seat)) for seat in range(4)] == [0, 1, 2, 3]
    with pytest.raises(errors.RoomFull):
        seating.join(table, "late", "Late", None)
    with pytest.raises(errors.SeatTaken):
        seating.join(table, "late", "Late", 2)


def test_a_refused_join_changes_nothing() -> None:
    table = seated_table(2)
    before = to_stored(table)
    with pytest.raises(errors.AlreadySeated):
        seating.join(table, TOKENS[1], "P1", 3)
    assert to_stored(table) == before


def test_join_is_pure_the_old_table_keeps_its_seat_empty() -> None:
    table = seated_table(1)
    outcome = seating.join(table, TOKENS[1], "Bob", None)
    assert outcome.answer["seat"] == 1 and outcome.table.seats[1].name == "Bob"
    assert table.seats[1].kind == "empty"
    assert outcome.events == [{"type": "seat_changed", "seat": 1, "kind": "human", "name": "Bob"}]


def test_resume_gives_the_seat_back_and_refuses_unknown_tokens() -> None:
    table = seated_table(3)
    resumed = seating.resume(table, TOKENS[2])
    assert resumed.answer == {"room_id": "room1", "seat": 2, "host": False}
    # Stored: the connection that resumed last holds the seat, on whichever process it is.
    assert resumed.stored and resumed.table.claims == (0, 0, 1, 0)
    assert from_stored(to_stored(resumed.table), 2, ()).claims == (0, 0, 1, 0)
    assert seating.resume(resumed.table, TOKENS[2]).table.claims == (0, 0, 2, 0)
    assert seating.resume(table, HOST_TOKEN).answer["host"] is True
    with pytest.raises(errors.BadToken):
        seating.resume(table, "forged")


def test_a_spectator_watches_without_changing_anything() -> None:
    table = seated_table(4)
    outcome = seating.watch(table)
    assert outcome.answer == {"room_id": "room1", "seat": None} and not outcome.stored
    assert outcome.table is table


def test_leave_before_the_start_empties_the_seat_and_hands_host_rights_on() -> None:
    table = seated_table(3)
    outcome = seating.leave(table, participant(0))
    assert outcome.table.seats[0].kind == "empty"
    assert outcome.table.host == participant(1)
    assert {"t": "host", "seat": 1} in outcome.entries


def test_leave_after_the_start_puts_a_bot_on_the_seat() -> None:
    table = started_table(4)
    outcome = seating.leave(table, participant(3))
    assert outcome.table.seats[3].kind == "bot" and facts.free_seats(outcome.table) == [3]


def test_only_the_host_adds_and_removes_bots() -> None:
    table = seated_table(2)
    with pytest.raises(errors.NotHost):
        seating.add_bot(table, participant(1), None, None)
    added = seating.add_bot(table, participant(0), None, "random")
    assert added.answer == {"seat": 2} and added.table.seats[2].bot == "random"
    with pytest.raises(errors.NotABot):
        seating.remove_bot(added.table, participant(0), 1)
    removed = seating.remove_bot(added.table, participant(0), 2)
    assert removed.table.seats[2].kind == "empty"


def test_start_fills_empty_seats_with_bots_and_deals() -> None:
    table = seated_table(2)
    with pytest.raises(errors.NotHost):
        seating.start(table, participant(1), "s")
    outcome = seating.start(table, participant(0), "secret-1")
    assert [seat.kind for seat in outcome.table.seats] == ["human", "human", "bot", "bot"]
    assert outcome.table.session is not None and table.session is None
    assert outcome.events[-1]["type"] == "deal_started"
    (entry,) = outcome.entries
    assert entry["t"] == "started" and entry["config"]["secret"] == "secret-1"
    assert all(seat["participant"] is None for seat in entry["seats"]), "no token hash in the log"
    with pytest.raises(errors.AlreadyStarted):
        seating.start(outcome.table, participant(0), "s")
