"""Every setting of the server, defined once, each with its default and help text.

`Limits` is what one client may use; `ServerSettings` is everything else a process is started with.
The command line (`python -m server --help`) is generated from these two classes, so a new setting is a
new field here; the server, the cluster launcher and the tests read the same defaults. docs/protocol.md
("Limits") says which error or close code answers each limit; docs/operations.md lists the flags.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib.metadata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .archive.urls import default_url
from .gc_policy import DEFAULT_FULL_INTERVAL
from .http import DEFAULT_STATIC_DIR
from .protocol import MAX_FRAME_BYTES

DISTRIBUTION = "whist-server"


def setting(default: Any, help: str, *, flag: str | None = None, choices: tuple[str, ...] | None = None,
            metavar: str | None = None, zero_is_off: bool = False, shown: str | None = None,
            derived: bool = False) -> Any:
    """A settings field: its default and the help of its flag (`--field-name` unless `flag` says).
    `zero_is_off`: 0 on the command line turns the limit off (the field is None). `shown`: the default
    as the help shows it, when it is not the value itself. `derived`: on the command line, the default
    is worked out from another flag (see `limits_from`)."""
    return field(default=default, metadata={"help": help, "flag": flag, "choices": choices,
                                            "metavar": metavar, "zero_is_off": zero_is_off, "shown": shown,
                                            "derived": derived})


@dataclass(frozen=True, slots=True)
class Limits:
    """What one client may use. `rate`/`burst`: a token bucket of `burst` messages per connection
    refilled at `rate` per second. For the others, 0 or None turns the limit off."""

    rate: float = setting(20.0, "messages per second per connection (the token bucket's refill)",
                          flag="--rate-limit")
    burst: float = setting(40.0, "messages one connection may send at once (the bucket's size)",
                           shown="twice --rate-limit", derived=True)
    connections_per_address: int = setting(
        20, "open connections from one client address; more are closed with code 1013 (0: no limit)",
        flag="--max-connections-per-address")
    rooms_per_address_per_hour: int = setting(
        100, "rooms one client address may create (create_room, daily) per hour; more get `rate_limited` "
        "(0: no limit)", flag="--max-rooms-per-address")
    idle_seconds: float | None = setting(
        1800.0, "seconds without a message from a client before its connection is closed with code 4408 "
        "(0: never)", flag="--idle-timeout", zero_is_off=True)
    ping_interval: float | None = setting(20.0, "seconds between websocket pings (0: none)", zero_is_off=True)
    ping_timeout: float | None = setting(
        20.0, "seconds to wait for a pong before closing a half-open connection with code 1011 (0: forever)",
        zero_is_off=True)
    # Every room is kept (a waiting one in memory and in the lobby), so one client must not make thousands.
    rooms_per_connection: int = setting(
        10, "rooms one connection may create per --room-window; more get `rate_limited`",
        flag="--max-rooms-per-connection")
    room_window: float = setting(60.0, "seconds over which --max-rooms-per-connection counts")
    # A window rather than "in a row": a flooder's messages that slip through as the bucket refills
    # must not wipe the slate.
    max_strikes: int = setting(
        30, "bad or excess messages (bad frames, flooding) within --strike-window that close the connection "
        "with code 1008")
    strike_window: float = setting(10.0, "seconds over which --max-strikes counts")
    frame_bytes: int = setting(MAX_FRAME_BYTES, "largest frame a request may be; larger ones get "
                               "`frame_too_large`", flag="--max-frame-bytes")
    hard_frame_bytes: int = setting(1024 * 1024, "largest frame read at all; larger ones close the "
                                    "connection with code 1009", flag="--hard-max-frame-bytes")
    queued_frames: int = setting(
        5000, "frames waiting for a client that reads nothing before its connection is closed with code 1008",
        flag="--max-queued-frames")
    close_flush_seconds: float = setting(
        2.0, "seconds a connection being closed by the server has to send its last answers (the errors that "
        "explain the close) before it closes anyway", flag="--close-flush")
    close_timeout: float = setting(3.0, "seconds to wait for a client to answer the closing handshake (on "
                                   "shutdown, clients that do not answer are not waited for longer)")
    # websockets' own high-water mark: past it frames wait in the outbox, sent one by one as the client reads.
    direct_write_bytes: int = setting(32 * 1024, "a frame is written at once while the connection's write "
                                      "buffer holds less than this; past it, frames queue")


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How one server process runs: where it listens, its store, its bots, its transport, and `limits`."""

    host: str = setting("127.0.0.1", "address to listen on")
    port: int = setting(8765, "port (0 picks a free one)")
    unix: str | None = setting(None, "also listen on this Unix socket, for a balancer on the same host (its "
                               "connections' X-Forwarded-For is trusted: only local processes allowed to "
                               "open the file reach it)", metavar="PATH")
    store: str = setting("memory://", "memory:// (embedded), redis://HOST:PORT/DB[?prefix=P] or "
                                      "redis+sentinel://HOST:PORT[,HOST:PORT...]/SERVICE[?db=N&prefix=P] or "
                                      "redis-cluster://HOST:PORT[,HOST:PORT...][?prefix=P]")
    log_level: str = setting("info", "debug, info, warning or error")
    bot_delay: float = setting(0.6, "seconds a bot waits before acting, so humans can follow")
    bot_workers: int = setting(1, "worker processes for the expert bot's decisions (they run away from the "
                               "event loop)")
    static_dir: Path = setting(  # noqa: RUF009 (a Path is immutable)
        DEFAULT_STATIC_DIR, "the web client's files", shown="client_web/")
    loop: str = setting("auto", "event loop: uvloop when installed (auto), or asyncio's own",
                        choices=("auto", "uvloop", "asyncio"))
    compression: str = setting("none", "websocket permessage-deflate (frames are small; it costs CPU on "
                               "both ends of every frame)", choices=("none", "deflate"))
    daily_secret: str | None = setting(None, "the daily challenge's server secret",
                                       shown="env WHIST_DAILY_SECRET, else one created once and kept in "
                                       "the store")
    replica_id: str | None = setting(None, "this process's name among several on one store (shown by "
                                     "/health)")
    gc_full_interval: float = setting(
        DEFAULT_FULL_INTERVAL, "seconds between the garbage collector's full passes, which hold the event "
        "loop (sooner if memory grows by a quarter and 256 MiB; 0: CPython's own rule)", metavar="SECONDS")
    archive: str = setting(
        "", "where finished sessions go for good: sqlite:///PATH, postgresql://USER@HOST:PORT/DB, or `off` "
        "(none: nothing is archived and nothing leaves the live store)", metavar="URL",
        shown="sqlite:///DATA/archive.sqlite3, DATA being $WHIST_DATA_DIR, else ~/.local/share/whist")
    retention: float = setting(
        86400.0, "seconds an archived session's room stays in the live store (readable there, then "
        "read from the archive)", metavar="SECONDS")
    abandon_after: float = setting(
        1800.0, "seconds a started room may stay with no human in it before it is archived as it stands "
        "and let go", metavar="SECONDS")
    trusted_proxy: tuple[str, ...] = setting(
        (), "a proxy (or network of proxies) whose X-Forwarded-For header gives the client address; repeat "
        "for several", metavar="ADDRESS[/BITS]", shown="none, the peer address is the client's")
    limits: Limits = field(default_factory=Limits)


DEFAULTS = ServerSettings()


def flag_of(item: dataclasses.Field[Any]) -> str:
    """The command-line flag of a settings field."""
    flag = item.metadata.get("flag")
    return str(flag) if flag else "--" + item.name.replace("_", "-")


def dest_of(item: dataclasses.Field[Any]) -> str:
    """Where argparse keeps a settings field's value (the flag's name)."""
    return flag_of(item).removeprefix("--").replace("-", "_")


def shown_default(item: dataclasses.Field[Any]) -> str:
    """A field's default as the help shows it."""
    if item.metadata.get("shown"):
        return str(item.metadata["shown"])
    value = item.default
    if value is None:
        return "none"
    return f"{value:g}" if isinstance(value, float) else str(value)


def setting_fields(kind: type[Any]) -> list[dataclasses.Field[Any]]:
    """The fields of a settings class that are flags (not the nested `limits`)."""
    return [item for item in dataclasses.fields(kind) if "help" in item.metadata]


def add_flags(parser: argparse.ArgumentParser | argparse._ArgumentGroup, kind: type[Any]) -> None:
    """One flag per field of `kind`, with its default and help."""
    for item in setting_fields(kind):
        options: dict[str, Any] = {"dest": dest_of(item), "help": f"{item.metadata['help']} "
                                   f"(default: {shown_default(item)})"}
        if item.metadata["metavar"]:
            options["metavar"] = item.metadata["metavar"]
        if item.metadata["choices"]:
            options["choices"] = item.metadata["choices"]
        if isinstance(item.default, tuple):
            options.update(action="append", default=[])
        elif item.metadata["derived"]:
            options.update(type=type(item.default), default=None)
        else:
            options.update(type=str if item.default is None else type(item.default), default=item.default)
        parser.add_argument(flag_of(item), **options)


def read_flags(kind: type[Any], args: argparse.Namespace) -> dict[str, Any]:
    """The values of `kind`'s fields on a parsed command line (0 turning off what it turns off)."""
    values = {}
    for item in setting_fields(kind):
        value = getattr(args, dest_of(item))
        if item.metadata["zero_is_off"] and not value:
            value = None
        values[item.name] = tuple(value) if isinstance(item.default, tuple) else value
    return values


def limits_from(args: argparse.Namespace) -> Limits:
    """The limits a parsed command line asks for."""
    values = read_flags(Limits, args)
    if values["burst"] is None:
        values["burst"] = 2 * values["rate"]
    return Limits(**values)


def archive_url(settings: ServerSettings) -> str | None:
    """The archive a process writes to: its `--archive` URL, the embedded default when none is given,
    None when it is `off`."""
    if settings.archive == "off":
        return None
    if settings.archive:
        return settings.archive
    return default_url()


def settings_from(args: argparse.Namespace) -> ServerSettings:
    """The settings a parsed command line asks for."""
    return ServerSettings(**read_flags(ServerSettings, args), limits=limits_from(args))


@functools.cache
def package_version() -> str:
    """The installed package's version (from its metadata, written from pyproject.toml by the build)."""
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
