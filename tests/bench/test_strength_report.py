"""bench/strength_report.py: the tables of docs/bots.md from the committed results files, counting only
the deals the current code played."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench import strength_report
from server.bots.match import run_match

RULESET = "whist"


def _report(directory: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    monkeypatch.setattr(sys, "argv", ["strength_report", str(directory), "--markdown"])
    assert strength_report.main() == 0
    return capsys.readouterr().out


def test_a_run_of_older_code_only_is_left_out_and_a_current_one_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # The file names say which table a run belongs to (as bench/strength.sh names them); cheap bots
    # stand in for the expert and expert-v1: the report reads only the file's own match key.
    stale = tmp_path / f"{RULESET}-expert-heuristic-2v2.jsonl"
    run_match(RULESET, "heuristic", "random", 3, "2v2", "report-stale", results_path=stale)
    lines = [json.loads(line) for line in stale.read_text().splitlines()]
    for line in lines:
        line["code"] = "0123456789abcdef"  # as if an older version of the code had played them
    stale.write_text("".join(json.dumps(line) + "\n" for line in lines))
    current = tmp_path / f"{RULESET}-expert-expertv1-2v2.jsonl"
    played = run_match(RULESET, "heuristic", "random", 4, "2v2", "report-current", results_path=current)

    out = _report(tmp_path, monkeypatch, capsys)

    tables = out.split("\n\n")
    assert not any(row.startswith(f"| {RULESET} | 2v2 |") for row in tables[0].splitlines()), \
        "a run with no deal of the current code has no row"
    [versus] = [table for table in tables if "expert - expert-v1" in table]
    [row] = [row for row in versus.splitlines() if row.startswith(f"| {RULESET} |")]
    assert row.startswith(f"| {RULESET} | {len(played)} | **") and row.endswith("| 0 |")
