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


def test_the_budget_and_the_report_count_every_balancer_process() -> None:
    before = hold.budget(tables=5000, processes=3, sources=3, balancers=3)
    assert before["balancer_processes"] == 3 and before["balancers_maxconn"] == 3 * machine_maxconn()
    assert "(3 processes: " in hold.balancers_note(before)
    assert hold.balancers_note(hold.budget(tables=10, processes=1, sources=1)) == ""
    held = {"per_process": [{"CurrConns": "7", "Maxconn": "9900"}, {"CurrConns": "8", "Maxconn": "9900"}]}
    assert hold.per_process_rows(held) == [
        "| ... each balancer process: current connections / maxconn | 7 / 9900, 8 / 9900 |"]
    assert hold.per_process_rows({"per_process": held["per_process"][:1]}) == []
    assert hold.balancer_names(3) == ["haproxy", "haproxy2", "haproxy3"]


def test_a_small_run_through_two_balancer_processes_counts_the_connections_of_both(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "benchmarks.md"
    assert hold.main(["--tables", "6", "--replicas", "1", "--seconds", "2", "--think", "0.2", "0.5",
                      "--processes", "2", "--sources", "2", "--open-rate", "20", "--balancer-processes", "2",
                      "--write", str(report)]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["tables_not_opened"] == 0 and result["connections_held"] == 30, result
    each = result["held"]["per_process"]
    assert len(each) == 2 and all(int(info["Maxconn"]) == machine_maxconn() for info in each), each
    # The summed count is the two processes' (and the asking stats sockets' own, at most one each).
    assert int(result["held"]["CurrConns"]) == sum(int(info["CurrConns"]) for info in each)
    assert 30 <= int(result["held"]["CurrConns"]) <= 32, each
    assert int(result["held"]["Maxconn"]) == 2 * machine_maxconn()
    assert set(result["processes"]) == {"haproxy", "haproxy2", "redis", "r1"}
    assert "| ... each balancer process: current connections / maxconn |" in report.read_text()
