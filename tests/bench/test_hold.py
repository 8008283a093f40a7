"""The single-balancer hold bench (`python -m bench.hold`), run small against a real cluster: the tables
open through the one balancer, every connection is still held at the end (the generator's count and
HAProxy's agree), and the report names every process's memory and descriptors. No figure is asserted
beyond counts (figures belong in docs/benchmarks.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import hold
from server.cluster.haproxy import machine_maxconn


def test_the_budget_names_the_limits_and_what_the_run_needs_of_them() -> None:
    before = hold.budget(tables=5000, processes=4, sources=4)
    assert before["connections_needed"] == 25_000 and before["connections_per_generator"] == 6_250
    assert before["connections_per_source"] == 6_250  # one address per generator process
    assert before["balancer_maxconn"] == machine_maxconn() and before["nofile_soft"] <= before["nofile_hard"]
    assert hold.budget(tables=5000, processes=4, sources=0)["connections_per_source"] == 25_000
    low, high = (int(value) for value in hold.PORT_RANGE.read_text().split())
    assert before["ports_per_source"] == high - low + 1


def test_a_small_run_holds_every_connection_through_the_one_balancer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "benchmarks.md"
    assert hold.main(["--tables", "3", "--replicas", "2", "--seconds", "3", "--think", "0.2", "0.5",
                      "--processes", "2", "--sources", "2", "--open-rate", "10", "--write", str(report)]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["tables_not_opened"] == 0 and result["connections_held"] == 15, result
    # HAProxy counts the same connections (and the stats socket's own, asking).
    assert 15 <= int(result["held"]["CurrConns"]) <= 16, result["held"]
    assert int(result["held"]["Maxconn"]) == machine_maxconn()
    assert set(result["processes"]) == {"haproxy", "redis", "r1", "r2"}
    assert all(usage["fds"] and usage["rss_mb"] for usage in result["processes"].values()), result
    assert result["actions"] > 0 and result["errors"] == 0, result
    text = report.read_text()
    assert hold.TITLE + "\n" in text and "| tables asked / opened / not opened | 3 / 3 / 0 |" in text
    assert "| haproxy |" in text and "| r2 |" in text
