"""The human-paced load generator (`bench/load.py --human`), the instrument of the load figures, run
small against a real cluster: its tables play, nothing fails, and its floor is measured. No figure is
asserted (figures belong in docs/benchmarks.md); what is checked is that the instrument works: it
once hung in its floor (messages dropped before the reader asked) and once had every connection closed
by the server (its loop blocked while it waited for the parent, so no pong went out)."""

from __future__ import annotations

import sys
from pathlib import Path

from server.cluster import Cluster

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import load_human  # noqa: E402


def test_the_generator_plays_its_tables_through_the_balancer_and_measures_the_floor() -> None:
    server_args = ["--log-level", "warning", "--max-connections-per-address", "0"]
    with Cluster(1, server_args=server_args) as cluster:
        pids = sorted(pid for pid in cluster.server_pids().values() if pid is not None)
        # Idle longer than nothing: the generator's connections must stay open while it waits.
        result = load_human.run(cluster.ws_url, tables=4, seconds=4.0, pids=pids, payload=200, seed=3,
                                processes=2, floor_seconds=3.0, idle_seconds=2.0)
    assert result["tables_not_opened"] == 0 and result["errors"] == 0, result
    assert result["actions"] > 0 and result["unfinished"] == 0, result
    assert result["floor_samples"] > 0, result


def test_the_medians_of_two_runs_keep_counts_whole() -> None:
    runs = [{"tables": 300, "server_processes": 2, "placement": "spread", "actions": 4000, "p99_all_ms": 3.0},
            {"tables": 300, "server_processes": 2, "placement": "spread", "actions": 4001, "p99_all_ms": 4.0}]
    (row,) = load_human.medians(runs)
    assert (row["tables"], row["server_processes"]) == (300, 2)
    assert isinstance(row["tables"], int) and isinstance(row["server_processes"], int)
    assert row["actions"] == 4000.5 and row["p99_all_ms"] == 3.5
    assert row["p99_each_run"] == "3.0, 4.0"


def test_writing_a_section_replaces_the_heading_named_and_not_one_it_begins() -> None:
    import tempfile

    from load import write_section

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "benchmarks.md"
        path.write_text("# Benchmarks\n\n## Load (human-paced): a dated note\n\nkept\n\n"
                        "## Load (human-paced)\n\nold figures\n\n## Leak proof\n\nkept too\n")
        write_section(path, "## Load (human-paced)\n\nnew figures\n", "## Load (human-paced)")
        text = path.read_text()
    assert "## Load (human-paced): a dated note\n\nkept\n" in text
    assert "new figures" in text and "old figures" not in text
    assert text.endswith("## Leak proof\n\nkept too\n")
