"""A deal's query columns come from replaying its record; a session ranks its seats by balance."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from archive_sessions import finished, humans, played_records

from server.archive import DealEntry, SeatEntry, player_hash
from server.rules.record import RecordError

RECORDS = Path(__file__).resolve().parents[1] / "rules" / "records"


def record(name: str) -> dict[str, object]:
    return dict(json.loads((RECORDS / name).read_text()))


def test_a_broken_misere_is_declared_by_its_seat_and_not_made() -> None:
    entry = DealEntry.from_record(0, record("solo-whist/misere_broken.json"))
    assert (entry.contract, entry.contract_kind, entry.declarers) == ("misere", "misere", (3,))
    assert entry.points == (3, 3, 3, -9) and entry.tricks == (0, 0, 0, 1)
    assert entry.made is False and entry.status == "complete"


def test_a_made_team_contract_is_made_for_both_declarers() -> None:
    entry = DealEntry.from_record(0, record("belge-club/emballage_made.json"))
    assert entry.contract == "emballage 8" and entry.declarers == (0, 1)
    assert entry.made is True and entry.points == (14, 14, -14, -14)


def test_a_thrown_in_deal_has_no_contract_and_no_made() -> None:
    entry = DealEntry.from_record(0, record("solo-whist/all_pass.json"))
    assert (entry.status, entry.contract, entry.contract_kind, entry.made) == ("thrown_in", None, None, None)


def test_the_entry_keeps_the_record_and_its_seed() -> None:
    source = record("solo-whist/abundance.json")
    entry = DealEntry.from_record(5, source)
    assert entry.record == source and entry.number == 5 and entry.seed == "abund-713"


def test_an_unfinished_or_broken_record_is_refused() -> None:
    unfinished = record("solo-whist/abundance.json")
    unfinished["actions"] = list(unfinished["actions"])[:6]  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="has not ended"):
        DealEntry.from_record(0, unfinished)
    illegal = record("solo-whist/abundance.json")
    illegal["actions"] = [[0, "play 2C"]]
    with pytest.raises(RecordError):
        DealEntry.from_record(0, illegal)


def test_ranks_share_a_place_on_equal_balances() -> None:
    session = finished("s", humans("a", "b", "c", "d"))
    ranked = replace(session, balances=(10, -5, 10, -15))
    assert ranked.ranks() == (1, 3, 1, 4)


def test_a_played_session_keeps_every_record_in_order() -> None:
    records, balances = played_records("couleur", 3, seed=7)
    session = finished("s", humans("a", "b", "c", "d"), ruleset="couleur", deals=3, seed=7)
    assert session.records() == records and session.balances == balances
    assert session.played_deals == 3 and sum(balances) == 0


def test_the_player_is_named_by_the_hash_of_the_key() -> None:
    assert player_hash("key") != "key" and len(player_hash("key")) == 64
    seat = SeatEntry("human", "a", player_hash("key"))
    assert SeatEntry.from_json(seat.to_json()).player == player_hash("key")
