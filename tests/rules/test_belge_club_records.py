"""Full `belge-club` deals replayed step by step from tests/rules/records/belge-club/, and through
`python -m server.rules replay` in a subprocess.

Written by records/couleur/make_belgian_records.py (solo_8_after_accepting: the ROUND hands of
belgian_helpers, each card the first legal one, written with `Deal.to_record`); the expected results
were checked by hand against docs/rules.md §3 and the points table of seeds/belge-club.toml (the comments
give the figures).
"""

from __future__ import annotations

from typing import Any

import pytest
from belgian_helpers import RECORDS, THROWN_IN, expected, load_record, replay_step_by_step, run_replay_cli

from server.rules.record import replay

RULESET = "belge-club"

EXPECTED: dict[str, dict[str, Any]] = {
    # Emballage by tricks made: 10 tricks = 14 per member (004), defenders -14 (not in source, D13).
    "emballage_made": expected("emballage 8", [0, 1], "C", [2, 8, 1, 2], [14, 14, -14, -14], 13),
    # Maintien, still nobody accepts: automatic pass, nobody else called: tour de passe.
    "maintien_then_tour_de_passe": THROWN_IN,
    # Solo 6 in spades after proposing diamonds: made, +12 and -8 each defender (mirror, D13).
    "solo_6_after_proposing": expected("solo 6", [0], "S", [6, 3, 0, 4], [12, -8, -8, -8], 13),
    # Piccolo: exactly one trick, +21; defenders -14 (D13).
    "piccolo_made": expected("piccolo", [1], None, [2, 1, 8, 2], [-14, 21, -14, -14], 13),
    # Petite misère étalée (not in source: 39 / 26, D13): discards, 12 tricks, made.
    "petite_misere_etalee": expected(
        "petite-misere-etalee", [1], None, [12, 0, 0, 0], [-26, 39, -26, -26], 12
    ),
    # D12: the bouche-trou (3) names clubs and leads; 9 tricks: +13 per member, defenders 0 (never negative).
    "trou_bouche_trou_names_trump": expected("trou", [2, 3], "C", [1, 3, 6, 3], [0, 0, 13, 13], 13),
    # D11: the bouche-trou refuses with abondance 9 in clubs; 9 out of reach after 6 tricks: -30, +20 each.
    "trou_refused_abondance": expected("abondance 9", [3], "C", [0, 0, 5, 1], [20, 20, 20, -30], 6),
    # D11: abondance 9 beats the trou; 0 fails (5 tricks lost after 5): -30, +20 each.
    "trou_beaten_by_abondance_9": expected("abondance 9", [0], "S", [0, 0, 5, 0], [-30, 20, 20, 20], 5),
    # Petit chelem without trump: 12 tricks made, play stops: +120, -80 each (D13).
    "petit_chelem_no_trump": expected("petit-chelem", [1], None, [0, 12, 0, 0], [-80, 120, -80, -80], 12),
    # Equal grandes misères, both made: each +36 and -24 to each of his opponents.
    "grande_misere_two_declarers": expected(
        "grande-misere", [1, 2], None, [13, 0, 0, 0], [-48, 12, 12, -48], 13
    ),
    # "Or accepted" (acceptor_may_solo): 1 accepted hearts, was outbid by 2's petite misère and went
    # alone, solo 8 in spades; the proposer (0) passed. Seat 0 wins the first six tricks, 8 is out of
    # reach (D8): -24 for the taker, +16 to each defender (004 "Solo 8 ... (+16 à chaque défenseur)").
    "solo_8_after_accepting": expected("solo 8", [1], "S", [6, 0, 0, 0], [16, -24, 16, 16], 6),
}

ILLEGAL: dict[str, tuple[int, str]] = {
    "illegal_solo_first_call": (3, "a solo is never a first call"),
    "illegal_bouche_trou_passes": (0, "the bouche-trou answers the trou first"),
}


def test_every_record_has_an_expected_result() -> None:
    assert sorted(p.stem for p in (RECORDS / RULESET).glob("*.json")) == sorted([*EXPECTED, *ILLEGAL])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_record_replays_step_by_step(name: str) -> None:
    deal = replay_step_by_step(load_record(RULESET, name))
    assert deal.result() == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_replay_command_prints_the_result(name: str) -> None:
    assert run_replay_cli(RULESET, name) == (0, EXPECTED[name])


@pytest.mark.parametrize("name", sorted(ILLEGAL))
def test_replay_command_stops_at_the_illegal_action(name: str) -> None:
    index, reason = ILLEGAL[name]
    status, output = run_replay_cli(RULESET, name)
    assert status == 1 and output["error"] == "illegal_action" and output["action_index"] == index
    assert reason in output["reason"]


def test_D10_record_carries_the_turn_up_and_views_show_it() -> None:
    record = load_record(RULESET, "trou_bouche_trou_names_trump")
    assert record["turn_up"] in record["hands"][record["dealer"]].split()
    deal = replay(record, 0)
    assert deal.view(0)["turn_up"] == record["turn_up"]


def test_record_etalee_exposed_after_trick_1_only() -> None:
    record = load_record(RULESET, "petite_misere_etalee")
    first_play = next(i for i, (_, action) in enumerate(record["actions"]) if action.startswith("play"))
    assert replay(record, first_play + 3).view(0)["exposed"] == {}
    assert list(replay(record, first_play + 4).view(0)["exposed"]) == ["1"]
