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

from .archive import ArchiveWriter, is_postgres, open_archive
from .coord import new_process_id, open_coordination
from .fd_limits import raise_open_file_limit
from .gc_policy import scheduled_full_passes
from .http import parse_networks
from .server import WhistServer
from .settings import Limits, ServerSettings, add_flags, archive_url, package_version, settings_from
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
    """The command line: one flag per field of `ServerSettings` and of its `Limits` (server/settings.py)."""
    parser = argparse.ArgumentParser(prog="whist-server", description="Real-time whist server.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    add_flags(parser, ServerSettings)
    add_flags(parser.add_argument_group("limits", "what one client may use"), Limits)
    args = parser.parse_args(argv)
    try:
        parse_networks(args.trusted_proxy)
    except ValueError as problem:
        parser.error(f"--trusted-proxy: {problem}")
    return args


def archive_writer(settings: ServerSettings) -> ArchiveWriter | None:
    """The archive's writer for `--archive` (None for `off`); it connects, and migrates the schema, on
    its first write."""
    url = archive_url(settings)
    if url is None:
        return None
    return ArchiveWriter(lambda: open_archive(url), kind="postgresql" if is_postgres(url) else "sqlite")


async def serve_until_stopped(settings: ServerSettings) -> None:
    """Listen, announce, and wait for SIGTERM/SIGINT."""
    store = open_store(settings.store)
    # Owner leases, fan-out and presence shared with every process on the same store (Redis); with the
    # memory store the process is alone: the default in-memory twins (see Tables).
    coordination = None if store.kind == "memory" else open_coordination(
        settings.store, new_process_id(settings.replica_id),
        info={"pid": os.getpid(), "replica": settings.replica_id})
    server = WhistServer(store, bot_delay=settings.bot_delay, static_dir=settings.static_dir,
                         limits=settings.limits,
                         compression=None if settings.compression == "none" else settings.compression,
                         daily_secret=settings.daily_secret, replica_id=settings.replica_id,
                         trusted_proxies=settings.trusted_proxy, coordination=coordination,
                         bot_workers=max(1, settings.bot_workers), archive=archive_writer(settings),
                         retention=settings.retention, abandon_after=settings.abandon_after)
    host, port = await server.start(settings.host, settings.port, settings.unix)
    # Everything loaded so far (modules, rulesets, stored rooms) lives as long as the process: keep it
    # out of the garbage collector's full passes, which otherwise pause every table now and then.
    gc.freeze()
    async with scheduled_full_passes(settings.gc_full_interval, server.metrics):
        await announce_and_wait(settings, server, host, port)


async def announce_and_wait(settings: ServerSettings, server: WhistServer, host: str, port: int) -> None:
    """Print the URL, wait for SIGTERM/SIGINT, then stop the server."""
    log = logging.getLogger("whist.main")
    shown_host = settings.host if settings.host not in ("", "0.0.0.0", "::") else host
    print(f"whist-server listening on http://{shown_host}:{port}/", flush=True)
    log.info("listening", extra={"fields": {"host": host, "port": port, "store": server.store.kind,
                                            "bot_delay": settings.bot_delay, "loop": loop_name(),
                                            "compression": settings.compression}})
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
    settings = settings_from(parse_args(argv))
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLogFormatter())
    logging.basicConfig(level=settings.log_level.upper(), handlers=[handler], force=True)
    logging.getLogger("websockets").setLevel(max(logging.WARNING, logging.getLogger().level))
    raise_open_file_limit()  # one descriptor per websocket: the soft limit (often 1,024) up to the hard one
    try:
        with asyncio.Runner(loop_factory=loop_factory(settings.loop)) as runner:
            runner.run(serve_until_stopped(settings))
    except OSError as problem:
        logging.getLogger("whist.main").error("cannot start: %s", problem)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
