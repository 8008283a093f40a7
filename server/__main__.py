"""`python -m server` / `whist-server`: run the live server.

Prints exactly one line to stdout once listening (`whist-server listening on http://HOST:PORT/`);
logs go to stderr as one JSON object per line. SIGTERM and SIGINT shut it down cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from .coord import new_process_id, open_coordination
from .gc_policy import DEFAULT_FULL_INTERVAL, scheduled_full_passes
from .http import DEFAULT_STATIC_DIR, parse_networks
from .limits import Limits
from .server import WhistServer
from .store import open_store


class JsonLogFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and any `extra={"fields": {...}}`."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a JSON line."""
        line = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps(line, default=str)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(prog="whist-server", description="Real-time whist server.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (0 picks a free one; default 8765)")
    parser.add_argument("--unix", metavar="PATH",
                        help="also listen on this Unix socket, for a balancer on the same host (its "
                             "connections' X-Forwarded-For is trusted: only local processes allowed to "
                             "open the file reach it)")
    parser.add_argument("--store", default="memory://",
                        help="memory:// (default, embedded) or redis://HOST:PORT/DB[?prefix=P]")
    parser.add_argument("--log-level", default="info", help="debug, info, warning or error (default info)")
    parser.add_argument("--bot-delay", type=float, default=0.6,
                        help="seconds a bot waits before acting, so humans can follow (default 0.6)")
    parser.add_argument("--bot-workers", type=int, default=1,
                        help="worker processes for the expert bot's decisions (default 1; they run away from "
                        "the event loop)")
    parser.add_argument("--rate-limit", type=float, default=20.0,
                        help="messages per second per connection (bursts of twice that; default 20)")
    parser.add_argument("--static-dir", type=Path, default=DEFAULT_STATIC_DIR,
                        help="the web client's files (default client_web/)")
    parser.add_argument("--loop", choices=("auto", "uvloop", "asyncio"), default="auto",
                        help="event loop: uvloop when installed (auto, the default), or asyncio's own")
    parser.add_argument("--compression", choices=("none", "deflate"), default="none",
                        help="websocket permessage-deflate: off by default (frames are small; it costs "
                        "CPU on both ends of every frame)")
    parser.add_argument("--daily-secret", default=None,
                        help="the daily challenge's server secret (default: env WHIST_DAILY_SECRET, else "
                        "one created once and kept in the store)")
    parser.add_argument("--replica-id", default=None,
                        help="this process's name among several on one store (shown by /health)")
    limits = Limits()
    parser.add_argument("--max-connections-per-address", type=int, default=limits.connections_per_address,
                        help="open connections from one client address; more are closed with code 1013 "
                        f"(0: no limit; default {limits.connections_per_address})")
    parser.add_argument("--max-rooms-per-address", type=int, default=limits.rooms_per_address_per_hour,
                        help="rooms one client address may create (create_room, daily) per hour; more get "
                        f"`rate_limited` (0: no limit; default {limits.rooms_per_address_per_hour})")
    parser.add_argument("--idle-timeout", type=float, default=limits.idle_seconds,
                        help="seconds without a message from a client before its connection is closed "
                        f"with code 4408 (0: never; default {limits.idle_seconds:g})")
    parser.add_argument("--ping-interval", type=float, default=limits.ping_interval,
                        help=f"seconds between websocket pings (0: none; default {limits.ping_interval:g})")
    parser.add_argument("--ping-timeout", type=float, default=limits.ping_timeout,
                        help="seconds to wait for a pong before closing a half-open connection with code "
                        f"1011 (default {limits.ping_timeout:g})")
    parser.add_argument("--gc-full-interval", type=float, default=DEFAULT_FULL_INTERVAL, metavar="SECONDS",
                        help="seconds between the garbage collector's full passes, which hold the event "
                        "loop (sooner if memory grows by a quarter and 256 MiB; 0: CPython's own rule; "
                        f"default {DEFAULT_FULL_INTERVAL:g})")
    parser.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS[/BITS]",
                        help="a proxy (or network of proxies) whose X-Forwarded-For header gives the client "
                        "address; repeat for several (default: none, the peer address is the client's)")
    args = parser.parse_args(argv)
    try:
        parse_networks(args.trusted_proxy)
    except ValueError as problem:
        parser.error(f"--trusted-proxy: {problem}")
    return args


def limits_from(args: argparse.Namespace) -> Limits:
    """The limits the command line asks for."""
    return Limits(rate=args.rate_limit, burst=2 * args.rate_limit,
                  connections_per_address=args.max_connections_per_address,
                  rooms_per_address_per_hour=args.max_rooms_per_address,
                  idle_seconds=args.idle_timeout or None,
                  ping_interval=args.ping_interval or None, ping_timeout=args.ping_timeout or None)


async def serve_until_stopped(args: argparse.Namespace) -> None:
    """Listen, announce, and wait for SIGTERM/SIGINT."""
    store = open_store(args.store)
    # Owner leases, fan-out and presence shared with every process on the same store (Redis); with the
    # memory store the process is alone: the default in-memory twins (see Tables).
    coordination = None if store.kind == "memory" else open_coordination(
        args.store, new_process_id(args.replica_id), info={"pid": os.getpid(), "replica": args.replica_id})
    server = WhistServer(store, bot_delay=args.bot_delay, static_dir=args.static_dir,
                         limits=limits_from(args),
                         compression=None if args.compression == "none" else args.compression,
                         daily_secret=args.daily_secret, replica_id=args.replica_id,
                         trusted_proxies=args.trusted_proxy, coordination=coordination,
                         bot_workers=max(1, args.bot_workers))
    host, port = await server.start(args.host, args.port, args.unix)
    # Everything loaded so far (modules, rulesets, stored rooms) lives as long as the process: keep it
    # out of the garbage collector's full passes, which otherwise pause every table now and then.
    gc.freeze()
    async with scheduled_full_passes(args.gc_full_interval, server.metrics):
        await announce_and_wait(args, server, host, port)


async def announce_and_wait(args: argparse.Namespace, server: WhistServer, host: str, port: int) -> None:
    """Print the URL, wait for SIGTERM/SIGINT, then stop the server."""
    log = logging.getLogger("whist.main")
    shown_host = args.host if args.host not in ("", "0.0.0.0", "::") else host
    print(f"whist-server listening on http://{shown_host}:{port}/", flush=True)
    log.info("listening", extra={"fields": {"host": host, "port": port, "store": server.store.kind,
                                            "bot_delay": args.bot_delay, "loop": loop_name(),
                                            "compression": args.compression}})
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    started = time.monotonic()
    log.info("shutting down")
    await server.stop()
    log.info("stopped", extra={"fields": {"seconds": round(time.monotonic() - started, 3)}})


def loop_factory(choice: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop to run on: uvloop (faster I/O and scheduling) when asked for or, with `auto`,
    when it is installed (it is not on every platform); None: asyncio's default loop."""
    if choice == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            raise SystemExit("--loop uvloop: uvloop is not installed (pip install uvloop)") from None
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def loop_name() -> str:
    """The running loop's kind, for the log."""
    return "uvloop" if type(asyncio.get_running_loop()).__module__.startswith("uvloop") else "asyncio"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `python -m server` and the `whist-server` console script."""
    args = parse_args(argv)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLogFormatter())
    logging.basicConfig(level=args.log_level.upper(), handlers=[handler], force=True)
    logging.getLogger("websockets").setLevel(max(logging.WARNING, logging.getLogger().level))
    try:
        with asyncio.Runner(loop_factory=loop_factory(args.loop)) as runner:
            runner.run(serve_until_stopped(args))
    except OSError as problem:
        logging.getLogger("whist.main").error("cannot start: %s", problem)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
