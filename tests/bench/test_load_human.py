"""The human-paced load generator (`python -m bench.load --human`), run small against a real cluster:
its tables play, nothing fails, and its floor is measured. No figure is asserted (figures belong in
docs/benchmarks.md); what is checked is that the instrument works: it once hung in its floor (messages
dropped before the reader asked) and once had every connection closed by the server (its loop blocked
while it waited for the parent, so no pong went out). And the rows of its report."""

from __future__ import annotations

import asyncio

from bench import load_human
from server.cluster import Cluster


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


def run_result(tables: int, replicas: int, placement: str, p99: float) -> dict[str, object]:
    """A result as `load_human.run` returns it, with every field the report reads."""
    return {"tables": tables, "placement": placement, "connections": tables * 5, "seconds": 20.0,
            "actions": 4000, "actions_per_s": 200.0, "errors": 0, "unfinished": 0, "tables_not_opened": 0,
            "p50_all_ms": 2.0, "p99_all_ms": p99, "p50_view_ms": 1.5, "p99_view_ms": p99 - 1,
            "server_processes": replicas, "generator_processes": 2, "server_cpu_ms_per_action": 1.0,
            "server_cpu_share": 0.5, "server_idle_cpu_share": 0.1, "server_settle_seconds": 2.0,
            "client_cpu_ms_per_action": 0.5, "floor_samples": 100, "floor_p50_ms": 1.0,
            "floor_p99_ms": 3.0, "load_avg_1m": 2.5}


def test_the_report_has_one_row_per_replicas_tables_and_placement_in_order() -> None:
    results = [run_result(300, 2, "affinity", 30.0), run_result(300, 2, "spread", 40.0),
               run_result(100, 1, "spread", 10.0), run_result(300, 2, "spread", 60.0)]
    rows = load_human.median_rows(results)
    assert [(r["server_processes"], r["tables"], r["placement"]) for r in rows] == [
        (1, 100, "spread"), (2, 300, "spread"), (2, 300, "affinity")]
    assert rows[1]["runs"] == 2 and rows[1]["p99_all_ms"] == 50.0 and rows[1]["p99_each_run"] == [40.0, 60.0]
    text = load_human.markdown(rows, "python -m bench.load --human --runs 2", "up", 2)
    assert text.startswith("## Load (human-paced)\n")
    assert "| 300 | spread | 1500 | 2 | 2 | 4000 | 200.0 | 2.0 | 50.0 | 40.0, 60.0 |" in text


def test_the_report_names_the_tables_that_could_not_be_opened() -> None:
    rows = load_human.median_rows([{**run_result(300, 1, "spread", 30.0), "tables_not_opened": 12}])
    text = load_human.markdown(rows, "python -m bench.load --human", "up", 1)
    assert "Tables that could not be opened (left out of the figures; median over the runs): " \
           "12 of 300 (spread, 1 replicas)." in text
    clean = load_human.median_rows([run_result(300, 1, "spread", 30.0)])
    assert "could not be opened" not in load_human.markdown(clean, "python -m bench.load --human", "up", 1)


class Pipe:
    """The generator's end of its pipe to the parent: what it sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, object]] = []

    def send(self, message: tuple[str, object]) -> None:
        self.sent.append(message)


async def test_tables_that_cannot_be_opened_are_counted_after_their_timeout_instead_of_waited_for() -> None:
    # A balancer that accepts connections and never answers (one at its maxconn leaves them in its
    # backlog): every table gives up after its open timeout, and the process says none opened.
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # until the client gives up
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    pipe = Pipe()
    try:
        pace = load_human.Pace(open_timeout=0.5, source="127.0.0.2")
        await load_human.generate(pipe, f"ws://127.0.0.1:{port}/ws", [0, 1, 2], 1, True, pace)  # type: ignore[arg-type]
    finally:
        server.close()
        await server.wait_closed()
    assert len(pipe.sent) == 1 and pipe.sent[0][0] == "failed", pipe.sent
    assert "no table opened" in str(pipe.sent[0][1]) and "TimeoutError" in str(pipe.sent[0][1]), pipe.sent
