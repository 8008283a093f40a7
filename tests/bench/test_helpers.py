"""What the benchmarks share (`bench.helpers`): the percentile formula and its empty input, the medians
over runs (counts stay whole), the writer of docs/benchmarks.md's sections."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from bench import helpers
from server.bots import match, stats


def test_the_percentile_is_the_nearest_rank() -> None:
    values = [4.0, 1.0, 3.0, 2.0]  # in any order
    assert [helpers.percentile(values, q) for q in (0, 25, 26, 50, 51, 75, 100)] == [1, 1, 2, 2, 3, 3, 4]
    assert helpers.percentile(range(1, 101), 99) == 99
    assert helpers.percentile(range(1, 1001), 99) == 990
    assert helpers.percentile(range(1, 1001), 99.9) == 999
    assert helpers.percentile([7], 1) == 7 and helpers.percentile([7], 99) == 7


def test_no_values_have_no_percentile() -> None:
    assert math.isnan(helpers.percentile([], 50))
    assert math.isnan(helpers.percentile([], 99) * 1000)  # and a figure computed from it is none either


def test_the_match_tool_and_the_benchmarks_use_the_one_percentile() -> None:
    assert helpers.percentile is stats.percentile is match.percentile


def test_the_medians_of_two_runs_keep_counts_whole() -> None:
    runs = [{"tables": 300, "server_processes": 2, "placement": "spread", "actions": 4000, "p99_all_ms": 3.0},
            {"tables": 300, "server_processes": 2, "placement": "spread", "actions": 4001, "p99_all_ms": 4.0}]
    (row,) = helpers.medians(runs, by=("tables",), each_run={"p99_each_run": "p99_all_ms"})
    assert (row["tables"], row["server_processes"]) == (300, 2)
    assert isinstance(row["tables"], int) and isinstance(row["server_processes"], int)
    assert row["actions"] == 4000.5 and row["p99_all_ms"] == 3.5
    assert row["runs"] == 2 and row["p99_each_run"] == [3.0, 4.0]
    assert row["placement"] == "spread"


def test_the_medians_group_by_the_fields_named_in_the_order_first_seen() -> None:
    results = [{"in_process": {"rooms": 20}},  # no `tables`: not a row
               {"tables": 100, "p99_ms": 1.0, "mean_ms": None, "load": 2.0},
               {"tables": 10, "p99_ms": 5.0, "mean_ms": 1.0, "load": 3.0},
               {"tables": 100, "p99_ms": 2.0, "mean_ms": 4.0, "load": 2.5},
               {"tables": 100, "p99_ms": 2.2229, "mean_ms": 6.0, "load": 3.0}]
    rows = helpers.medians(results, by=("tables",), digits=2, each_run={"load_each_run": "load"})
    assert [row["tables"] for row in rows] == [100, 10]
    hundred = rows[0]
    assert hundred["p99_ms"] == 2.0 and hundred["runs"] == 3 and hundred["load_each_run"] == [2.0, 2.5, 3.0]
    assert hundred["mean_ms"] is None  # the first run's, not a number: kept as it is
    (ten,) = helpers.medians(results[2:3], by=("tables",))
    assert ten["p99_ms"] == 5.0 and ten["runs"] == 1
    odd = helpers.medians([{"k": 1, "x": 1.23456}, {"k": 1, "x": 1.23456}], by=("k",), digits=2)
    assert odd[0]["x"] == 1.23


def test_a_median_of_runs_without_the_figure_skips_them() -> None:
    (row,) = helpers.medians([{"k": 1, "x": 10}, {"k": 1, "x": None}, {"k": 1, "x": 20}], by=("k",))
    assert row["x"] == 15 and isinstance(row["x"], int)


@pytest.fixture
def benchmarks(tmp_path: Path) -> Path:
    path = tmp_path / "benchmarks.md"
    path.write_text("# Benchmarks\n\n## Load (human-paced): a dated note\n\nkept\n\n"
                    "## Load (human-paced)\n\nold figures\n\n## Leak proof\n\nkept too\n")
    return path


def test_writing_a_section_replaces_the_heading_named_and_not_one_it_begins(benchmarks: Path) -> None:
    helpers.write_section(benchmarks, "## Load (human-paced)\n\nnew figures\n", "## Load (human-paced)")
    assert benchmarks.read_text() == ("# Benchmarks\n\n## Load (human-paced): a dated note\n\nkept\n\n"
                                      "## Load (human-paced)\n\nnew figures\n\n## Leak proof\n\nkept too\n")


def test_writing_the_last_section_or_a_new_one(benchmarks: Path, tmp_path: Path) -> None:
    helpers.write_section(benchmarks, "## Leak proof\n\nnew\n", "## Leak proof")
    assert benchmarks.read_text().endswith("## Load (human-paced)\n\nold figures\n\n## Leak proof\n\nnew\n")
    helpers.write_section(benchmarks, "## Engine\n\nfast\n", "## Engine")
    assert benchmarks.read_text().endswith("## Leak proof\n\nnew\n\n## Engine\n\nfast\n")
    fresh = tmp_path / "new.md"
    helpers.write_section(fresh, "## Engine\n\nfast\n", "## Engine")
    assert fresh.read_text() == "# Benchmarks\n\n## Engine\n\nfast\n"
