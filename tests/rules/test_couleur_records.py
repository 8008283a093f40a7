"""Full `couleur` deals replayed step by step from tests/rules/records/couleur/, and through
`python -m server.rules replay` in a subprocess.

The records were written by records/couleur/make_belgian_records.py; the expected results below were
checked by hand against docs/rules.md §2 (the comments give the arithmetic), not copied blindly from the
engine. Each step also checks that the action was listed as legal, that no view shows a hidden card,
that 52 cards are conserved, and who won each trick against a reference written apart from the engine.
"""

from __future__ import annotations

from typing import Any

import pytest
from belgian_helpers import THROWN_IN, expected, load_record, replay_step_by_step, run_replay_cli

from server.rules.record import RecordError, replay

RULESET = "couleur"

EXPECTED: dict[str, dict[str, Any]] = {
    # D6: 0 proposes hearts, 2 accepts; 9 tricks: 8 + 3 = 11 each member.
    "emballage_made": expected("emballage 8", [0, 2], "H", [4, 2, 5, 2], [11, -11, 11, -11], 13),
    # D6 raising: spades team (0, 1) raised to 11 over the hearts team; 7 tricks:
    # 11 + 3 x (11 - 8) + 3 x (11 - 7 - 1) = 29 each.
    "emballage_raised_failed": expected("emballage 11", [0, 1], "S", [2, 5, 5, 1], [-29, -29, 29, 29], 13),
    # D6 lapse: 0's diamonds lapse under 1's hearts; 0 plays a solo 6 in diamonds: 6 tricks, 4 per opponent.
    "solo_after_lapse": expected("solo 6", [0], "D", [6, 3, 4, 0], [12, -4, -4, -4], 13),
    # D6: the spades team's speaker (1) passes, 2 renews hearts, 0 takes spades over as a solo 5:
    # 3 tricks, 4 + (5 - 3 - 1) = 5 per opponent.
    "partner_takes_over_solo": expected("solo 5", [0], "S", [3, 2, 6, 2], [-15, 5, 5, 5], 13),
    # D9: abondance 10 in clubs, declarer 1 leads; 10 tricks: 15 per opponent.
    "abondance_declarer_leads": expected("abondance 10", [1], "C", [1, 10, 2, 0], [-15, 45, -15, -15], 13),
    # D7: seat 2 has three aces, seat 3 the ace of clubs leads it; 8 tricks after 9 and 13 out of reach:
    # play stops (D8), 16 each.
    "trou_three_aces": expected("trou", [2, 3], "C", [1, 0, 6, 2], [-16, -16, 16, 16], 9),
    # D7: four aces (seat 2), hearts, partner 0 with KH; the defence's sixth trick at trick 12: failed.
    "trou_royal": expected("trou", [0, 2], "H", [1, 3, 5, 3], [-16, 16, -16, 16], 12),
    # D7 overcall: seat 1's trou (partner 3) is overcalled by 2's grande misère, made: 12 per opponent.
    "trou_overcalled_grande_misere": expected(
        "grande-misere", [2], None, [0, 13, 0, 0], [-12, -12, 36, -12], 13
    ),
    # Equal misères: 1 and 2 both petite misère, four hidden discards, 12 tricks; both made:
    # each +18 and -6 to each of his three opponents.
    "petite_misere_two_declarers": expected(
        "petite-misere", [1, 2], None, [12, 0, 0, 0], [-12, 12, 12, -12], 12
    ),
    # Misère étalée exposed before trick 1; 0 must win trick 1 (only spades): D8 stop, 24 per opponent.
    "misere_etalee_early_stop": expected("misere-etalee", [0], None, [1, 0, 0, 0], [-72, 24, 24, 24], 1),
    "grand_chelem": expected("grand-chelem", [0], "S", [13, 0, 0, 0], [180, -60, -60, -60], 13),
    "tour_de_passe": THROWN_IN,
    # After a tour de passe the record carries multiplier 2: grande misère made, 2 x 12 per opponent.
    "doubled_after_tour_de_passe": expected(
        "grande-misere", [1], None, [13, 0, 0, 0], [-24, 72, -24, -24], 13
    ),
}

ILLEGAL: dict[str, tuple[int, str]] = {
    "illegal_solo_first_call": (1, "no other player can still accept (D6)"),
    "illegal_abondance_second_turn": (4, "abondance only on your first turn to speak"),
}


def test_every_record_has_an_expected_result() -> None:
    from belgian_helpers import RECORDS

    assert sorted(p.stem for p in (RECORDS / RULESET).glob("*.json")) == sorted([*EXPECTED, *ILLEGAL])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_record_replays_step_by_step(name: str) -> None:
    deal = replay_step_by_step(load_record(RULESET, name))
    assert deal.result() == EXPECTED[name]
    assert deal.to_record()["actions"] == load_record(RULESET, name)["actions"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_replay_command_prints_the_result(name: str) -> None:
    status, output = run_replay_cli(RULESET, name)
    assert (status, output) == (0, EXPECTED[name])


@pytest.mark.parametrize("name", sorted(ILLEGAL))
def test_replay_command_stops_at_the_illegal_action(name: str) -> None:
    index, reason = ILLEGAL[name]
    status, output = run_replay_cli(RULESET, name)
    assert status == 1 and output["error"] == "illegal_action" and output["action_index"] == index
    assert reason in output["reason"]
    with pytest.raises(RecordError):
        replay(load_record(RULESET, name))


def test_record_trou_partner_opens_with_the_ace_of_trumps() -> None:
    record = load_record(RULESET, "trou_three_aces")
    assert record["actions"][2] == [3, "play AC"]
    record = load_record(RULESET, "trou_royal")
    assert record["actions"][2] == [0, "play KH"]


def test_record_misere_etalee_view_shows_the_hand_before_trick_1() -> None:
    record = load_record(RULESET, "misere_etalee_early_stop")
    deal = replay(record, 4)
    assert deal.view(2)["exposed"] == {"0": sorted(deal.hands[0], key=lambda c: "AKQJT98765432".index(c[0]))}


def test_record_discards_hidden_until_the_end() -> None:
    record = load_record(RULESET, "petite_misere_two_declarers")
    deal = replay(record, 8)  # four calls, then the four discards
    assert deal.view(0)["discarded"] == "2S" and "discards" not in deal.view(0)
    assert deal.view(None)["discards_made"] == [0, 1, 2, 3]
    assert replay(record).view(0)["discards"] == {"0": "2S", "1": "AH", "2": "AD", "3": "2C"}
