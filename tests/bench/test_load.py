"""The server load benchmark (`python -m bench.load`): its report (one row per table count, medians
over the runs, counts whole; the tables it could not open), and tables that cannot be opened counted
instead of waited for."""

from __future__ import annotations

import asyncio

from bench import load
from server.cluster.processes import free_port


def run_result(tables: int, run: int, p99: float, deals: int) -> dict[str, object]:
    """A result as `load.main_async` collects it, with every field the report reads."""
    return {"client_cpu_ms_per_deal": 3.0, "server_cpu_ms_per_deal": 4.0, "tables": tables, "seconds": 15.0,
            "deals": deals, "deals_per_s": 80.0, "client_actions": 1000, "p50_ms": 4.0, "p99_ms": p99,
            "mean_ms": 5.0, "run": run, "load_avg_1m": 3.5, "server_p50_ms": 2.0, "server_p99_ms": 9.0,
            "echo_p50_ms": 0.5, "echo_p99_ms": 2.0, "p50_ratio": 8.0, "p99_ratio": 10.0}


def test_the_report_gives_the_medians_of_each_table_count() -> None:
    results = [{"in_process": {"store": "redis", "rooms": 20, "deals": 200, "actions": 2800,
                               "us_per_action": 150}},
               run_result(10, 1, 20.0, 100), run_result(100, 1, 50.0, 1000),
               run_result(10, 2, 30.0, 101), run_result(100, 2, 70.0, 1001)]
    text = load.markdown(results, "python -m bench.load --runs 2", "up")
    assert text.startswith("## Load (server)\n")
    table = [line for line in text.splitlines() if line.startswith("| 10")]
    assert table == ["| 10 | 2 | 80.0 | 1000 | 4.0 | 25.0 | 20.0, 30.0 | 0.5 | 2.0 | 10.0 | 2.0 / 9.0 | 4.0 "
                     "| 3.0 | 3.5, 3.5 |",
                     "| 100 | 2 | 80.0 | 1000 | 4.0 | 60.0 | 50.0, 70.0 | 0.5 | 2.0 | 10.0 | 2.0 / 9.0 | 4.0 "
                     "| 3.0 | 3.5, 3.5 |"]
    assert "**150 µs per action**" in text


def test_the_report_names_the_tables_that_could_not_be_opened() -> None:
    results = [run_result(10, 1, 20.0, 100), {**run_result(100, 1, 50.0, 1000), "not_opened": 7}]
    text = load.markdown(results, "python -m bench.load", "up")
    assert "Tables that could not be opened (left out of the figures of their run): 7 of 100 (run 1)." in text
    assert "could not be opened" not in load.markdown(results[:1], "python -m bench.load", "up")


async def test_tables_that_cannot_be_opened_are_counted_instead_of_waited_for() -> None:
    # A server that accepts connections and never answers (a handshake that would hang forever), and
    # an address where nobody listens: each table gives up after the timeout and is counted.
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # until the client gives up
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        clients, failures = await load.open_tables(f"ws://127.0.0.1:{port}/ws", 2, "random", timeout=0.5)
        assert clients == [] and len(failures) == 2 and all("Timeout" in reason for reason in failures)
    finally:
        server.close()
        await server.wait_closed()
    clients, failures = await load.open_tables(f"ws://127.0.0.1:{free_port()}/ws", 1, "random", timeout=30)
    assert clients == [] and len(failures) == 1
