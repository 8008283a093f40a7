"""`python -m server.rules replay FILE [--view SEAT] [--at N]` as docs/deal-record.md says."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.rules.record import replay

ROOT = Path(__file__).resolve().parents[2]
RECORDS = Path(__file__).parent / "records" / "solo-whist"


def run(*args: str, stdin: str | None = None) -> tuple[int, Any]:
    completed = subprocess.run(
        [sys.executable, "-m", "server.rules", "replay", *args], cwd=ROOT, input=stdin,
        capture_output=True, text=True, timeout=60, check=False,
    )
    lines = completed.stdout.strip().splitlines()
    assert len(lines) == 1, completed.stdout + completed.stderr  # one JSON object on standard output
    return completed.returncode, json.loads(lines[0])


def write(tmp_path: Path, record: Any) -> str:
    path = tmp_path / "record.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    return str(path)


def test_replay_prints_the_result_and_exits_0() -> None:
    status, output = run(str(RECORDS / "abundance.json"))
    assert status == 0
    assert output == {"status": "complete", "contract": "abundance", "declarers": [1], "trump": "H",
                      "tricks": [3, 5, 2, 0], "points": [5, -15, 5, 5], "tricks_played": 10}
    assert list(output) == ["status", "contract", "declarers", "trump", "tricks", "points", "tricks_played"]


def test_replay_thrown_in_deal() -> None:
    status, output = run(str(RECORDS / "prop_uncopped.json"))
    assert (status, output) == (0, {"status": "thrown_in", "contract": None, "declarers": [], "trump": None,
                                    "tricks": [0, 0, 0, 0], "points": [0, 0, 0, 0], "tricks_played": 0})


def test_replay_in_progress_record(tmp_path: Path) -> None:
    record = json.loads((RECORDS / "solo.json").read_text())
    record["actions"] = record["actions"][:4 + 4 * 3 + 2]
    del record["seed"]
    status, output = run(write(tmp_path, record))
    assert status == 0
    assert output == {"status": "in_progress", "contract": "solo", "declarers": [2], "trump": "H",
                      "tricks": [0, 3, 0, 0], "points": [0, 0, 0, 0], "tricks_played": 3}


@pytest.mark.parametrize(("seat", "at"), [("2", "4"), ("spectator", "9"), ("0", None), ("3", "0")])
def test_replay_view(seat: str, at: str | None) -> None:
    path = RECORDS / "spread_misere.json"
    record = json.loads(path.read_text())
    status, output = run(str(path), "--view", seat, *(["--at", at] if at is not None else []))
    assert status == 0
    deal = replay(record, int(at) if at is not None else None)
    assert output == json.loads(json.dumps(deal.view(None if seat == "spectator" else int(seat))))
    if at == "9":
        assert output["exposed"]["3"] and output["hand"] is None and "seed" not in output


def test_replay_reads_standard_input() -> None:
    status, output = run("-", stdin=(RECORDS / "misere_broken.json").read_text())
    assert status == 0 and output["contract"] == "misere" and output["tricks_played"] == 1


def test_replay_illegal_action_exit_1(tmp_path: Path) -> None:
    record = json.loads((RECORDS / "solo.json").read_text())
    # Action 5 is seat 2 following 1's AD lead with 2D; play a club instead while holding diamonds.
    assert record["actions"][5] == [2, "play 2D"]
    record["actions"][5] = [2, "play 5C"]
    status, output = run(write(tmp_path, record))
    assert status == 1
    assert output == {"error": "illegal_action", "action_index": 5,
                      "reason": "must follow suit: holds diamonds"}


def test_replay_illegal_call_exit_1(tmp_path: Path) -> None:
    record = json.loads((RECORDS / "solo.json").read_text())
    record["actions"][2] = [3, "prop"]  # after 2 called solo
    status, output = run(write(tmp_path, record))
    assert status == 1
    assert output == {"error": "illegal_action", "action_index": 2,
                      "reason": "prop is legal only while no call has been made"}


def test_replay_action_after_early_end_is_illegal(tmp_path: Path) -> None:
    record = json.loads((RECORDS / "misere_broken.json").read_text())
    record["actions"].append([3, "play 8S"])
    status, output = run(write(tmp_path, record))
    assert status == 1 and output["error"] == "illegal_action" and output["action_index"] == 8


@pytest.mark.parametrize(("entry", "reason"), [
    ([1, "play AZ"], "not a card"),
    ([1, "bid"], "unknown action"),
    ([9, "pass"], "not a seat"),
    ("pass", "[seat, action] pair"),
])
def test_replay_malformed_action_exit_1(tmp_path: Path, entry: Any, reason: str) -> None:
    record = json.loads((RECORDS / "all_pass.json").read_text())
    record["actions"][2] = entry
    status, output = run(write(tmp_path, record))
    assert status == 1
    assert output["error"] == "malformed_record" and output["action_index"] == 2
    assert reason in output["reason"]


@pytest.mark.parametrize(("change", "reason"), [
    (lambda r: r.pop("hands"), "no 'hands'"),
    (lambda r: r.update(ruleset="bridge"), "unknown ruleset"),
    (lambda r: r.update(turn_up="2S" if "2S" not in r["hands"][r["dealer"]] else "3S"), "turn_up"),
    (lambda r: r.update(hands=r["hands"][:3]), "four hands"),
    (lambda r: r.update(house_rules={"overtricks": 1}), "house rule"),
    (lambda r: r.update(seed="another seed"), "seed"),
    (lambda r: r.update(colour="red"), "unknown keys"),
])
def test_replay_malformed_record_exit_1(tmp_path: Path, change: Any, reason: str) -> None:
    record = json.loads((RECORDS / "all_pass.json").read_text())
    change(record)
    status, output = run(write(tmp_path, record))
    assert status == 1 and output["error"] == "malformed_record" and reason in output["reason"]


def test_replay_not_json_or_missing_file_exit_1(tmp_path: Path) -> None:
    status, output = run(write(tmp_path, "{not json"))
    assert status == 1 and output["error"] == "malformed_record" and "not valid JSON" in output["reason"]
    status, output = run(str(tmp_path / "missing.json"))
    assert status == 1 and output["error"] == "malformed_record" and "cannot read" in output["reason"]
