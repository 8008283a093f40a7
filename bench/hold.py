"""One balancer holding thousands of human-paced tables: how many it opens and keeps, and what it costs.

    python -m bench.hold --tables 1900 --replicas 3 --seconds 120 --think 5 15 --processes 3 --sources 3 \\
        --open-rate 40 --write docs/benchmarks.md

Starts the topology of `python -m server.cluster` (a private Redis, `--replicas` server replicas and
one HAProxy, the launcher having raised its open-file limit for them all: server/fd_limits.py),
then opens `--tables` tables through the balancer with `bench/load_human.py`'s generator: four human
seats and a spectator per table, every connection naming its room (`/ws?room=<id>`), the tables
spread over `--processes` generator processes that each connect from their own loopback address
(`--sources`: each address has its own ephemeral ports), opened at `--open-rate` tables per second
(a ramp), each given `--open-timeout` seconds before it counts as not opened. The tables are held for
`--seconds` while the seats play at a slow pace (`--think`: seconds each seat thinks). Reported:
tables opened and not opened (and why), connections held at the end, actions answered and their
latency until every seat and the spectator has them, and for HAProxy, Redis and each replica their
CPU share during play, resident memory and open descriptors with every table held, with HAProxy's
own count (`show info`). `--balancer-processes N`: N HAProxy processes on the one balancer address
(`python -m server.cluster --balancer-processes`), each watched and counted on its own.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from pathlib import Path
from typing import Any

from bench.helpers import host_uptime, write_section
from bench.load_human import Pace, run
from server.cluster import Cluster
from server.cluster.haproxy import machine_maxconn
from server.fd_limits import raise_open_file_limit

TITLE = "## One balancer: tables held"
# What `show info` says of the balancer's limits and load.
INFO_FIELDS = ("Maxconn", "Hard_maxconn", "CurrConns", "CumConns", "Maxsock", "Ulimit-n", "MaxConnRate")
PORT_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")


def balancer_info(stats_socket: Path) -> dict[str, str]:
    """HAProxy's `show info`, the fields of INFO_FIELDS."""
    with socket.socket(socket.AF_UNIX) as connection:
        connection.settimeout(5)
        connection.connect(str(stats_socket))
        connection.sendall(b"show info\n")
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    fields = dict(line.split(": ", 1) for line in data.decode().splitlines() if ": " in line)
    return {name: fields[name] for name in INFO_FIELDS if name in fields}


SUMMED_FIELDS = ("Maxconn", "CurrConns", "CumConns")


def balancers_info(stats_sockets: list[Path]) -> dict[str, Any]:
    """`balancer_info` of every balancer process: the counts of SUMMED_FIELDS added up over them, the
    other fields the first one's, and each process's own under `per_process`."""
    each = [balancer_info(path) for path in stats_sockets]
    held: dict[str, Any] = dict(each[0])
    for name in SUMMED_FIELDS:
        if all(name in info for info in each):
            held[name] = str(sum(int(info[name]) for info in each))
    held["per_process"] = each
    return held


def balancer_names(count: int) -> list[str]:
    """The names of the balancer processes in the report: haproxy, haproxy2, ..."""
    return ["haproxy" if number == 1 else f"haproxy{number}" for number in range(1, count + 1)]


def budget(tables: int, processes: int, sources: int, balancers: int = 1) -> dict[str, Any]:
    """What the machine gives before anything starts: this process's open-file limits once raised
    (every child inherits them), the balancer's derived `maxconn`, the ephemeral ports of one source
    address, and what the run needs of each; `balancers` processes hold `balancers` x `maxconn`."""
    soft, hard = raise_open_file_limit()
    low, high = (int(value) for value in PORT_RANGE.read_text().split())
    connections = tables * 5
    return {"nofile_soft": soft, "nofile_hard": hard, "balancer_maxconn": machine_maxconn(),
            "balancer_processes": balancers, "balancers_maxconn": balancers * machine_maxconn(),
            "connections_needed": connections, "ports_per_source": high - low + 1,
            "connections_per_source": -(-connections // max(1, min(sources, processes) if sources else 1)),
            "connections_per_generator": -(-connections // processes)}


def balancers_note(before: dict[str, Any]) -> str:
    """`, per process: N processes, M in all` when there are more than one balancer processes."""
    count = before.get("balancer_processes", 1)
    return f" per process ({count} processes: {before['balancers_maxconn']:,} in all)" if count > 1 else ""


def per_process_rows(held: dict[str, Any]) -> list[str]:
    """With more than one balancer process, the row of each one's current connections and maxconn."""
    each = held.get("per_process", [])
    if len(each) < 2:
        return []
    counts = ", ".join(f"{info.get('CurrConns', '?')} / {info.get('Maxconn', '?')}" for info in each)
    return [f"| ... each balancer process: current connections / maxconn | {counts} |"]


def markdown(result: dict[str, Any], before: dict[str, Any], command: str, uptime: str) -> str:
    """The section of docs/benchmarks.md."""
    held = result["held"]
    lines = [
        TITLE, "",
        f"Command: `{command}` (bench/hold.py; host at the start: `{uptime}`)", "",
        f"Limits: open files {before['nofile_soft']:,} soft / {before['nofile_hard']:,} hard (raised as far "
        f"as this process may, inherited by every child), balancer `maxconn` {before['balancer_maxconn']:,}"
        f"{balancers_note(before)}; "
        f"{before['connections_needed']:,} connections needed, {before['connections_per_source']:,} per "
        f"source address against {before['ports_per_source']:,} ephemeral ports.", "",
        "| figure | value |", "| --- | ---: |",
        f"| tables asked / opened / not opened | {result['tables']:,} / "
        f"{result['tables'] - result['tables_not_opened']:,} / {result['tables_not_opened']:,} |",
        f"| why not opened | {json.dumps(result['not_opened_why']) if result['not_opened_why'] else '-'} |",
        f"| connections held at the end (generator's count) | {result['connections_held']:,} |",
        f"| HAProxy current connections / maxconn (show info, every balancer process) | "
        f"{held.get('CurrConns', '?')} / "
        f"{held.get('Maxconn', '?')} (Ulimit-n {held.get('Ulimit-n', '?')}) |",
        *per_process_rows(held),
        f"| seconds held while playing / think time | {result['seconds']} s / {result['think_s'][0]:g}-"
        f"{result['think_s'][1]:g} s |",
        f"| actions answered (per second) / errors / unfinished | {result['actions']:,} "
        f"({result['actions_per_s']}) / {result['errors']} / {result['unfinished']} |",
        f"| action latency to every seat and the spectator, p50 / p99 | {result['p50_all_ms']} / "
        f"{result['p99_all_ms']} ms |",
        f"| per view, p50 / p99 | {result['p50_view_ms']} / {result['p99_view_ms']} ms |",
        f"| server CPU per action / servers' share during play (idle, before play) | "
        f"{result['server_cpu_ms_per_action']} ms / {result['server_cpu_share']} "
        f"({result['server_idle_cpu_share']}) |",
        f"| generator CPU per action ({result['generator_processes']} processes) | "
        f"{result['client_cpu_ms_per_action']} ms |",
        f"| load average (1 min) at the end | {result['load_avg_1m']} |",
        "", "| process | CPU share during play | resident MB | open descriptors |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, usage in result["processes"].items():
        lines.append(f"| {name} | {usage['cpu_share']} | {usage['rss_mb']} | {usage['fds']} |")
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.hold", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=60.0, help="how long the tables are held, playing")
    parser.add_argument("--think", type=float, nargs=2, default=(5.0, 15.0), metavar=("LOW", "HIGH"),
                        help="seconds each seat thinks before an action (default 5 15)")
    parser.add_argument("--processes", type=int, default=3, help="load generator processes (default 3)")
    parser.add_argument("--sources", type=int, default=3,
                        help="loopback source addresses 127.0.0.2.. over the generator processes (0: none)")
    parser.add_argument("--open-rate", type=float, default=40.0, help="tables opened per second (the ramp)")
    parser.add_argument("--open-timeout", type=float, default=60.0,
                        help="seconds a table may take to open before it counts as not opened")
    parser.add_argument("--balancer-processes", type=int, default=1, metavar="N",
                        help="HAProxy processes on the one balancer address (default 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--write", type=Path, help="write the figures into this markdown file")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    """Run it once; print the figures (JSON); write them with `--write`."""
    args = parse_args(argv)
    uptime = host_uptime()
    before = budget(args.tables, args.processes, args.sources, args.balancer_processes)
    print(json.dumps(before), file=sys.stderr, flush=True)
    # As bench/load_human.py's clusters: every client is on this host, so the per-address limits are off.
    server_args = ["--log-level", "warning", "--rate-limit", "100000",
                   "--max-connections-per-address", "0", "--max-rooms-per-address", "0"]
    with Cluster(args.replicas, server_args=server_args, balancers=args.balancer_processes) as cluster:
        assert cluster.redis is not None and cluster.redis.pid is not None
        balancers = cluster.balancer_pids()
        assert len(balancers) == args.balancer_processes, balancers
        watch = {**dict(zip(balancer_names(len(balancers)), balancers, strict=True)),
                 "redis": cluster.redis.pid, **cluster.server_pids()}
        pids = sorted(cluster.server_pids().values())
        pace = Pace(think=(args.think[0], args.think[1]), open_rate=args.open_rate,
                    open_timeout=args.open_timeout)
        result = run(cluster.ws_url, args.tables, args.seconds, pids, payload=0, seed=args.seed,
                     processes=args.processes, floor_seconds=0, placement="affinity", pace=pace,
                     sources=args.sources, watch=watch,
                     while_held=lambda: balancers_info(cluster.stats_sockets))
    result["limits"] = before
    print(json.dumps(result), flush=True)
    if args.write:
        write_section(args.write, markdown(result, before, "python -m bench.hold " + " ".join(argv), uptime),
                      TITLE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
