"""The duplicate match tool: same deals, seats rotated, any bot against any other, on any ruleset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bots_helpers import RULESETS

from server.bots.match import (
    MODES,
    bot_module_files,
    code_fingerprint,
    load_results,
    main,
    match_key,
    mean_ci,
    percentile,
    play_deal,
    run_match,
    source_digest,
    stale_deals,
    summarize,
)


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


def test_the_code_fingerprint_follows_the_deciding_source_and_the_settings(tmp_path: Path) -> None:
    for name, text in (("server/bots/bot.py", "A = 1\n"), ("server/rules/rules.py", "B = 2\n"),
                       ("seeds/game.toml", "c = 3\n"), ("docs/bots.md", "text\n")):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    key = match_key("couleur", "expert", "heuristic", "2v2", "duplicate", {})
    first = code_fingerprint(key, 20.0, ["expert", "heuristic"], root=tmp_path)
    (tmp_path / "docs/bots.md").write_text("other text\n")  # not code that decides: same fingerprint
    (tmp_path / "server/bots/__pycache__").mkdir()
    (tmp_path / "server/bots/__pycache__/bot.cpython-311.pyc").write_bytes(b"compiled")
    assert code_fingerprint(key, 20.0, ["expert", "heuristic"], root=tmp_path) == first
    for name in ("server/bots/bot.py", "server/rules/rules.py", "seeds/game.toml"):
        before = source_digest(tmp_path)
        (tmp_path / name).write_text((tmp_path / name).read_text() + "# changed\n")
        assert source_digest(tmp_path) != before, name
    changed = code_fingerprint(key, 20.0, ["expert", "heuristic"], root=tmp_path)
    assert changed != first
    # The settings count too: the budget, and the match itself.
    assert code_fingerprint(key, 50.0, ["expert", "heuristic"], root=tmp_path) != changed
    other = match_key("couleur", "expert", "heuristic", "1v3", "duplicate", {})
    assert code_fingerprint(other, 20.0, ["expert", "heuristic"], root=tmp_path) != changed
    # A bot loaded by module:Class brings its module's source.
    assert [p.as_posix().endswith("server/bots/base.py")
            for p in bot_module_files(["server.bots.base:RandomBot", "heuristic"])] == [True]


def test_deals_played_by_other_code_are_ignored_counted_and_played_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "run.jsonl"
    whole = run_match(RULESETS[0], "heuristic", "random", 5, "2v2", "fingerprint")
    run_match(RULESETS[0], "heuristic", "random", 5, "2v2", "fingerprint", results_path=path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    key = lines[0]["match"]
    code = code_fingerprint(key, 20.0, ["heuristic", "random"])
    assert {line["code"] for line in lines} == {code}
    # Deals 1 and 3 as if recorded by an older version of the code: they must not count.
    for line in lines:
        if line["index"] in (1, 3):
            line["code"] = "0123456789abcdef"
            line["tables"][0]["points"] = [999, 999, 999, 999]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert stale_deals(path, key, code) == 2
    assert sorted(r.index for r in load_results(path, key, code)) == [0, 2, 4]
    resumed = run_match(RULESETS[0], "heuristic", "random", 5, "2v2", "fingerprint", results_path=path)
    assert len(path.read_text().splitlines()) == 7  # deals 1 and 3 played again, appended
    assert [[t.points for t in d.tables] for d in resumed] == [[t.points for t in d.tables] for d in whole]
    argv = ["--ruleset", RULESETS[0], "--bots", "heuristic", "random", "--deals", "5", "--prefix",
            "fingerprint", "--results", str(path)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "deals: 5 " in out and "ignored: 2 deals" in out


def test_a_results_line_is_small_and_keeps_the_slow_decision_times(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    played = run_match(RULESETS[0], "heuristic", "random", 4, "1v3", "compact", results_path=path)
    key = json.loads(path.read_text().splitlines()[0])["match"]
    read = load_results(path, key, code_fingerprint(key, 20.0, ["heuristic", "random"]))
    for before, after in zip(played, read, strict=True):
        for table, back in zip(before.tables, after.tables, strict=True):
            assert back.points == table.points
            assert (back.contract, back.declarers) == (table.contract, table.declarers)
            for name, times in table.decision_cpu_ns.items():
                assert len(back.decision_cpu_ns[name]) == len(times)
                slow = sorted(t for t in times if t >= 1_000_000)
                kept = sorted(t for t in back.decision_cpu_ns[name] if t > 0)
                assert [round(t / 1e5) for t in kept] == [round(t / 1e5) for t in slow]
    assert max(len(line) for line in path.read_text().splitlines()) < 1500
