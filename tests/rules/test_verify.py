"""Provably fair deals: the seed commitment in every view and record, and `python -m server.rules verify`
(docs/deal-record.md "Checking a deal by hand")."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.rules import Deal, Session, ruleset_names, seed_commitment
from server.rules.verify import verify_record

ROOT = Path(__file__).resolve().parents[2]


def finished_record(ruleset: str, seed: str = "fair-1", dealer: int = 2) -> dict[str, Any]:
    deal = Deal.from_seed(ruleset, seed, dealer)
    rng = random.Random(seed)
    while not deal.finished:
        seat = min(deal.to_act())
        legal = deal.legal_actions(seat)
        deal.apply(seat, "pass" if "pass" in legal else rng.choice(legal))
    return deal.to_record()


def test_the_commitment_is_the_hex_sha256_of_the_seeds_utf8_bytes() -> None:
    assert seed_commitment("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert seed_commitment("dé") == hashlib.sha256("dé".encode()).hexdigest()


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_every_view_carries_the_commitment_from_the_first_moment_and_the_seed_only_at_the_end(
        ruleset: str) -> None:
    deal = Deal.from_seed(ruleset, "commit-me", 1)
    commitment = seed_commitment("commit-me")
    rng = random.Random(7)
    while True:
        for viewer in (0, 1, 2, 3, None):
            view = deal.view(viewer)
            assert view["seed_commitment"] == commitment
            if not deal.finished:
                assert "seed" not in view and "commit-me" not in json.dumps(view)
        record = deal.to_record()
        assert record["seed_commitment"] == commitment
        if deal.finished:
            break
        assert "seed" not in record
        seat = min(deal.to_act())
        deal.apply(seat, rng.choice(deal.legal_actions(seat)))
    assert deal.view(None)["seed"] == "commit-me" and record["seed"] == "commit-me"


def test_a_session_history_records_the_seed_and_its_commitment() -> None:
    session = Session("couleur", "history-secret")
    while not session.deal.finished:
        seat = min(session.deal.to_act())
        session.apply(seat, session.deal.legal_actions(seat)[0])
    record = session.history[-1]["record"]
    assert record["seed_commitment"] == seed_commitment(record["seed"])
    assert verify_record(record)["verified"] is True


@pytest.mark.parametrize("ruleset", ruleset_names())
def test_a_good_record_verifies(ruleset: str) -> None:
    record = finished_record(ruleset)
    outcome = verify_record(record)
    assert outcome["verified"] is True, outcome
    assert outcome["hands"] == [" ".join(hand) for hand in Deal.from_seed(ruleset, "fair-1", 2).dealt]
    assert (outcome["turn_up"] is None) == ("turn_up" not in record)


def tamper(record: dict[str, Any], how: str) -> dict[str, Any]:
    changed = json.loads(json.dumps(record))
    if how == "seed":
        changed["seed"] = "fair-2"
    elif how == "commitment":
        changed["seed_commitment"] = seed_commitment("fair-2")
    elif how == "hands":  # two cards swapped between seats 0 and 1
        first, second = changed["hands"][0].split(), changed["hands"][1].split()
        first[0], second[0] = second[0], first[0]
        changed["hands"][0], changed["hands"][1] = " ".join(first), " ".join(second)
    elif how == "dealer":
        changed["dealer"] = (changed["dealer"] + 1) % 4
    elif how == "turn_up":
        dealer_hand = changed["hands"][changed["dealer"]].split()
        changed["turn_up"] = next(card for card in dealer_hand if card != changed["turn_up"])
    elif how == "no seed":
        del changed["seed"]
    return changed


@pytest.mark.parametrize(("how", "failed"), [
    ("seed", "commitment"), ("commitment", "commitment"), ("hands", "hands"), ("dealer", "hands"),
    ("turn_up", "turn_up"), ("no seed", "record"),
])
def test_each_kind_of_tampering_is_caught(how: str, failed: str) -> None:
    outcome = verify_record(tamper(finished_record("whist"), how))
    assert outcome["verified"] is False and outcome["failed"] == failed, outcome
    assert outcome["reason"]


def run_verify(tmp_path: Path, record: Any) -> tuple[int, Any]:
    path = tmp_path / "record.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    done = subprocess.run([sys.executable, "-m", "server.rules", "verify", str(path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1, done.stdout + done.stderr
    return done.returncode, json.loads(lines[0])


def test_the_verify_command_prints_one_json_object_and_exits_0_or_1(tmp_path: Path) -> None:
    record = finished_record("belge-club")
    status, output = run_verify(tmp_path, record)
    assert status == 0 and output["verified"] is True
    assert output["seed_commitment"] == record["seed_commitment"]
    status, output = run_verify(tmp_path, tamper(record, "hands"))
    assert status == 1 and output == {**output, "verified": False, "failed": "hands"}
    status, output = run_verify(tmp_path, "not json")
    assert status == 1 and output["verified"] is False and output["failed"] == "record"
