"""The duplicate match tool: same deals, seats rotated, any bot against any other, on any ruleset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bots_helpers import RULESETS

from server.bots.match import MODES, main, mean_ci, percentile, play_deal, run_match, summarize


def test_every_seat_of_every_deal_is_played_by_each_bot() -> None:
    for mode in MODES:
        deal = play_deal(RULESETS[0], 7, "dup", mode, "heuristic", "random")
        for seat in range(4):
            assert {table.lineup[seat] for table in deal.tables} == {"heuristic", "random"}
        # The same cards at every table: with the same bots the tables are identical.
    same = play_deal(RULESETS[0], 7, "dup", "2v2", "heuristic", "heuristic")
    assert same.tables[0].points == same.tables[1].points


def test_runs_are_reproducible_and_the_summary_adds_up() -> None:
    first = summarize(run_match(RULESETS[0], "heuristic", "random", 12, "1v3", "repro"),
                      "heuristic", "random")
    second = summarize(run_match(RULESETS[0], "heuristic", "random", 12, "1v3", "repro"),
                       "heuristic", "random")
    for summary in (first, second):
        summary.pop("decision_ms")
    assert first == second
    assert first["deals"] == 12 and first["tables"] == 48
    a = first["points_per_deal"]["heuristic"]["mean"]
    b = first["points_per_deal"]["random"]["mean"]
    assert first["difference"]["mean"] == pytest.approx(a - b)
    bids = sum(c["bid"] for c in first["contracts"].values())
    assert bids + first["thrown_in_tables"] >= 48


def test_statistics_helpers() -> None:
    mean, low, high = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and low < 2.5 < high
    assert percentile(list(range(1, 101)), 99) == 99
    assert percentile([5], 50) == 5


def test_command_line_prints_a_report_and_writes_json(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "summary.json"
    argv = ["--ruleset", RULESETS[0], "--bots", "heuristic", "random", "--deals", "6", "--json", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "95% CI" in text and "p99" in text and "contracts declared by" in text
    data = json.loads(out.read_text())
    assert data["deals"] == 6 and data["ruleset"] == RULESETS[0]


def test_command_line_rejects_bad_input_clearly(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--ruleset", RULESETS[0], "--bots", "heuristic", "nobody"]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err
    assert main(["--ruleset", RULESETS[0], "--house-rules", "[1]"]) == 2
    assert main(["--ruleset", "no-such-game", "--deals", "1"]) == 2
    assert "unknown ruleset" in capsys.readouterr().err


def test_spreading_deals_over_processes_gives_the_same_results() -> None:
    one = run_match(RULESETS[0], "heuristic", "random", 6, "2v2", "jobs")
    two = run_match(RULESETS[0], "heuristic", "random", 6, "2v2", "jobs", jobs=2)
    assert [[t.points for t in d.tables] for d in one] == [[t.points for t in d.tables] for d in two]
    assert [d.index for d in two] == list(range(6))


def test_a_bot_outside_the_registry_is_loaded_by_module_and_class(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--ruleset", RULESETS[0], "--bots", "server.bots.base:RandomBot", "heuristic", "--deals", "2"]
    assert main(argv) == 0
    assert "server.bots.base:RandomBot" in capsys.readouterr().out
    assert main(["--ruleset", RULESETS[0], "--bots", "server.bots.base:NoSuchBot", "heuristic"]) == 2
    assert "cannot load bot" in capsys.readouterr().err


def test_a_results_file_resumes_a_run_and_refuses_another_match(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "run.jsonl"
    whole = run_match(RULESETS[0], "heuristic", "random", 6, "2v2", "resume")
    first = run_match(RULESETS[0], "heuristic", "random", 4, "2v2", "resume", results_path=path)
    assert [r.index for r in first] == [0, 1, 2, 3] and len(path.read_text().splitlines()) == 4
    resumed = run_match(RULESETS[0], "heuristic", "random", 6, "2v2", "resume", results_path=path)
    assert len(path.read_text().splitlines()) == 6  # only deals 4 and 5 were played
    assert [[t.points for t in d.tables] for d in resumed] == [[t.points for t in d.tables] for d in whole]
    assert summarize(resumed, "heuristic", "random")["difference"] == summarize(
        whole, "heuristic", "random")["difference"]
    argv = ["--ruleset", RULESETS[0], "--bots", "random", "heuristic", "--deals", "2", "--prefix", "resume",
            "--results", str(path)]
    assert main(argv) == 2
    assert "another match" in capsys.readouterr().err
