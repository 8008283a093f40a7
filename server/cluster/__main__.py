"""`python -m server.cluster --replicas N --port P [--store redis://...] [--archive URL]`: a private
redis-server (unless `--store`), N server replicas and HAProxy on port P. Prints the URL once everything
answers (`whist-cluster listening on http://HOST:P/`), then waits; SIGTERM or SIGINT stops everything.

`--redis sentinel` starts a Redis primary, `--redis-replicas` replicas and three sentinels instead of
the single Redis, and the server replicas on `redis+sentinel://...`; `--redis cluster` a Redis Cluster
(three primaries, one replica each) and the server replicas on `redis-cluster://...` (every redis
process described with its `shard`); `--describe PATH` writes every
process started (role, pid, host, port) as JSON once everything answers; `--logs DIR` keeps the
processes' logs (and the Redis data) in DIR instead of a temporary directory removed at the end.
`--balancer-processes N` runs N HAProxy processes on the one balancer address (each its own open-file
limit, hence its own `maxconn`; the kernel spreads new connections over them: docs/scaling.md).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..archive import default_url
from ..settings import DEFAULTS
from .haproxy import BALANCE_CHOICES, compose_config
from .launcher import REDIS_TOPOLOGIES, Cluster


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m server.cluster", description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=2, help="server processes (default 2)")
    parser.add_argument("--port", type=int, default=DEFAULTS.port,
                        help=f"the balancer's port (0: a free one; default {DEFAULTS.port})")
    parser.add_argument("--host", default=DEFAULTS.host,
                        help=f"the balancer's address (default {DEFAULTS.host})")
    parser.add_argument("--store", default=None,
                        help="redis://HOST:PORT/DB[?prefix=P] (default: a private redis-server)")
    parser.add_argument("--redis", choices=REDIS_TOPOLOGIES, default="single",
                        help="the private Redis: one redis-server (single), a primary, its replicas and "
                             "three sentinels (sentinel), or a Redis Cluster of three primaries with one "
                             "replica each (cluster); default single")
    parser.add_argument("--redis-replicas", type=int, default=2,
                        help="Redis replicas of the sentinel topology (default 2: with one, the promoted "
                             "replica has none left and refuses writes, min-replicas-to-write 1, until "
                             "another joins)")
    parser.add_argument("--sentinel-down-after-ms", type=int, default=1500,
                        help="how long the sentinels (or a Redis Cluster's nodes) wait for a silent "
                             "primary before a failover (default 1500)")
    parser.add_argument("--describe", type=Path, default=None, metavar="PATH",
                        help="write the processes started (JSON) to PATH once everything answers")
    parser.add_argument("--logs", type=Path, default=None, metavar="DIR",
                        help="keep the logs (and Redis data) in DIR (default: a temporary directory, "
                             "removed at the end)")
    parser.add_argument("--archive", default=None, metavar="URL",
                        help="where every replica archives finished sessions: postgresql://... (what a "
                        "cluster should use), sqlite:///PATH, or off (default: one SQLite file in the "
                        "data folder, the same for every replica: their writes queue on its lock)")
    parser.add_argument("--balance", choices=BALANCE_CHOICES, default="leastconn")
    parser.add_argument("--balancer-processes", type=int, default=1, metavar="N",
                        help="HAProxy processes on the one balancer address (SO_REUSEPORT: the kernel "
                             "spreads new connections over them), each with its own stats socket and "
                             "open-file limit, so its own maxconn (default 1)")
    # The replicas' own defaults (server/settings.py) apply unless these are given.
    parser.add_argument("--bot-delay", type=float, default=None,
                        help=f"passed on to every replica (default {DEFAULTS.bot_delay:g})")
    parser.add_argument("--rate-limit", type=float, default=None,
                        help=f"passed on to every replica (default {DEFAULTS.limits.rate:g})")
    parser.add_argument("--retention", type=float, default=None, metavar="SECONDS",
                        help=f"passed on to every replica (default {DEFAULTS.retention:g})")
    parser.add_argument("--abandon-after", type=float, default=None, metavar="SECONDS",
                        help=f"passed on to every replica (default {DEFAULTS.abandon_after:g})")
    parser.add_argument("--log-level", default="warning", help="the replicas' log level (default warning)")
    parser.add_argument("--write-compose-config", type=Path, default=None, metavar="PATH",
                        help="write the HAProxy configuration of docker-compose.yml to PATH and exit")
    return parser.parse_args(argv)


def archive_args(archive: str | None) -> list[str]:
    """The replicas' `--archive`: the one given, else one SQLite file in the launcher's data folder,
    named once here so that every replica writes to the same file (SQLite serialises the writers:
    `BEGIN IMMEDIATE` and a 30 s busy timeout; PostgreSQL for anything busier)."""
    return ["--archive", archive or default_url()]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the cluster until SIGTERM/SIGINT."""
    args = parse_args(argv)
    if args.write_compose_config is not None:
        args.write_compose_config.write_text(compose_config())
        return 0
    server_args = ["--log-level", args.log_level, *archive_args(args.archive)]
    if args.bot_delay is not None:
        server_args += ["--bot-delay", str(args.bot_delay)]
    if args.rate_limit is not None:
        server_args += ["--rate-limit", str(args.rate_limit)]
    if args.retention is not None:
        server_args += ["--retention", str(args.retention)]
    if args.abandon_after is not None:
        server_args += ["--abandon-after", str(args.abandon_after)]
    stopping = False

    def interrupt(signum: int, frame: object) -> None:
        nonlocal stopping
        if not stopping:  # a second signal during the shutdown does not cut it short
            stopping = True
            raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)
    cluster = Cluster(args.replicas, args.port, args.store, args.host, args.balance, server_args,
                      directory=args.logs, redis=args.redis, redis_replicas=args.redis_replicas,
                      down_after_ms=args.sentinel_down_after_ms, balancers=args.balancer_processes)
    try:
        with cluster:
            described = cluster.describe()
            if args.describe is not None:
                partial = args.describe.with_name(args.describe.name + ".partial")
                partial.write_text(json.dumps(described, indent=1))
                partial.replace(args.describe)  # whole or not at all, for a reader that polls
            print(f"whist-cluster listening on {cluster.url}", flush=True)
            print(json.dumps(described), file=sys.stderr, flush=True)
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
