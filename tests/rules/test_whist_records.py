"""Full `whist` deals replayed step by step from tests/rules/records/whist/, and through
`python -m server.rules replay` and `verify` in a subprocess.

The records were written by records/whist/make_whist_records.py. The expected figures were checked by
hand from the tricks (each trick's winner is checked against a reference written apart from the engine
while replaying): each member of the side over six tricks scores the tricks over six; honours (house
rule) add 4 for all four trump honours dealt to a side, 2 for three. Trump is the turn-up's suit and
the declarers are the dealer's side (docs/adding-a-ruleset.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from belgian_helpers import RECORDS, REPO, expected, load_record, replay_step_by_step, run_replay_cli

from server.rules import seed_commitment, shuffled_deck

RULESET = "whist"

EXPECTED: dict[str, dict[str, Any]] = {
    # Dealer 0 turns up a diamond; side 0-2 takes 7 + 3 = 10 tricks: 10 - 6 = 4 each, side 1-3 nothing.
    "seeded_dealer_0": expected("whist", [0, 2], "D", [7, 2, 3, 1], [4, 0, 4, 0], 13),
    # Honours on: side 1-3 takes 4 + 4 = 8 tricks, 2 each; side 0-2 (5 tricks) was dealt three of
    # A K Q J of diamonds: 2 each.
    "seeded_dealer_2_honours": expected("whist", [0, 2], "D", [3, 4, 2, 4], [2, 2, 2, 2], 13),
    # Target 7 changes nothing in one deal: side 0-2 takes 4 + 4 = 8 tricks, 2 each.
    "seeded_dealer_3_target_7": expected("whist", [1, 3], "D", [4, 3, 4, 2], [2, 0, 2, 0], 13),
    # Each seat holds one suit; dealer 3 turns up 2C: seat 3 ruffs trick 1, then its clubs win every
    # trick: 13 tricks, 13 - 6 = 7 each for side 1-3.
    "suits_apart": expected("whist", [1, 3], "C", [0, 0, 0, 13], [0, 7, 0, 7], 13),
    # The same with honours: seat 3 holds A K Q J of clubs, 7 + 4 = 11 each for side 1-3.
    "honours_counted": expected("whist", [1, 3], "C", [0, 0, 0, 13], [0, 11, 0, 11], 13),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_whist_record_replays_step_by_step(name: str) -> None:
    record = load_record(RULESET, name)
    deal = replay_step_by_step(record)
    assert deal.result() == EXPECTED[name]
    assert deal.contract is not None and deal.contract.trump == record["turn_up"][1]
    assert deal.to_record() == record


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_whist_record_through_the_replay_command(name: str) -> None:
    status, output = run_replay_cli(RULESET, name)
    assert (status, output) == (0, EXPECTED[name])


@pytest.mark.parametrize("name", ["seeded_dealer_0", "seeded_dealer_2_honours", "seeded_dealer_3_target_7"])
def test_seeded_whist_records_verify_and_the_turn_up_is_the_dealers_last_card(name: str) -> None:
    record = load_record(RULESET, name)
    assert record["seed_commitment"] == seed_commitment(record["seed"])
    assert record["turn_up"] == shuffled_deck(record["seed"])[-1]  # dealt last, to the dealer
    assert record["turn_up"] in record["hands"][record["dealer"]].split()
    path = RECORDS / RULESET / f"{name}.json"
    done = subprocess.run([sys.executable, "-m", "server.rules", "verify", str(path)],
                          cwd=REPO, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["verified"] is True
