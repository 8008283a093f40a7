"""The WebSocket server: accepts connections (within the per-address limits), routes each request to
the rooms, and serves /health and /metrics on the same port."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import logging
import os
import time
from collections.abc import Awaitable, Sequence
from pathlib import Path
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve, unix_serve
from websockets.exceptions import ConnectionClosed

from . import protocol
from .api import Api
from .archive import ArchiveWriter, player_hash
from .bots import bot_names
from .challenge import DailyChallenge
from .connection import Connection
from .coord import Coordination
from .http import DEFAULT_STATIC_DIR, client_address, make_process_request, parse_networks
from .limits import CLOSE_IDLE, CLOSE_TOO_MANY_CONNECTIONS, AddressCounts, AddressWindow
from .live import Tables
from .live.archiving import ArchivePolicy
from .loop_lag import watch_loop_lag
from .metrics import InstrumentedStore, Metrics
from .protocol import ProtocolError
from .replay_service import replay_answer
from .rules import ruleset_names
from .settings import DEFAULTS, Limits, package_version
from .store import Store
from .table import Table, TableError, chat, facts

log = logging.getLogger("whist.app")

SERVER_NAME = f"whist-server {package_version()}"
# The HTTP `Server` header: the product only, no version (a version tells an attacker what to try).
SERVER_HEADER = "whist-server"


def wire_error(problem: TableError) -> ProtocolError:
    """A table error as the protocol's error (the stable code its class carries, and its message)."""
    return ProtocolError(problem.code, problem.message)


def room_kind(table: Table) -> str:
    """A room's kind for the metrics: daily, listed (in the lobby) or private."""
    return "daily" if table.daily is not None else "listed" if table.options.listed else "private"


@functools.cache
def ruleset_info() -> dict[str, Any]:
    """The rulesets' titles and house rules (they never change while the process runs)."""
    return protocol.ruleset_info()


class WhistServer:
    """The server: a room manager on a store, listening for WebSocket and HTTP on one port."""

    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = DEFAULTS.bot_delay,
        static_dir: Path = DEFAULT_STATIC_DIR,
        limits: Limits | None = None,
        compression: str | None = None,
        daily_secret: str | None = None,
        replica_id: str | None = None,
        trusted_proxies: Sequence[str] = (),
        coordination: Coordination | None = None,
        bot_workers: int = DEFAULTS.bot_workers,
        archive: ArchiveWriter | None = None,
        retention: float = DEFAULTS.retention,
        abandon_after: float = DEFAULTS.abandon_after,
    ) -> None:
        self.store = store
        # Where finished sessions go for good (None: nowhere; they stay in the store). It opens the
        # archive on its first write, and keeps retrying while the archive is down: play never waits.
        self.archive = archive
        self.replica_id = replica_id  # which process this is among several on one store (/health)
        self.metrics = Metrics()
        if archive is not None:
            archive.observe(self.metrics.observe_archive_write)
        # The rooms go through a store that times every call and counts conflicts.
        self.timed_store = InstrumentedStore(store, self.metrics)
        # permessage-deflate (None: off). Frames are a few hundred bytes to a few KiB of msgpack or
        # JSON: compressing them costs more CPU on both ends than it saves on the wire.
        self.compression = compression
        # Shared with the other processes on the same store (default: this process alone owns everything).
        self.tables = Tables(self.timed_store, bot_delay, coordination=coordination, metrics=self.metrics,
                             bot_workers=bot_workers, archive=archive,
                             policy=ArchivePolicy(retention=retention, abandon_after=abandon_after))
        # daily_secret None: the env var, else the store's
        self.daily = DailyChallenge(self.tables, self.timed_store, daily_secret)
        self.tables.listen(self.daily)
        # The HTTP API reads the live rooms through one port (a room's `get_records` answer) and the
        # archive through the writer's connection.
        self.api = Api(self.tables.room_reader.for_reader, archive.archive if archive is not None else None)
        self.static_dir = static_dir
        self.limits = limits or Limits()
        self.trusted_proxies = parse_networks(trusted_proxies)
        self.connections: set[Connection] = set()
        self.connections_by_address = AddressCounts()
        self.rooms_by_address = AddressWindow()
        self.server: Server | None = None
        self.unix_server: Server | None = None  # `--unix`: the local balancer's way in
        self.tasks: set[asyncio.Task[Any]] = set()
        # How long the last requests took inside the server (frame read -> answer queued), for /health.
        self.request_seconds: collections.deque[float] = collections.deque(maxlen=5000)

    def spawn(self, coroutine: Awaitable[Any]) -> None:
        """Run a background task, keeping a reference until it ends."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def dispatch(self, conn: Connection, request: protocol.Request) -> dict[str, Any]:
        """Route a validated request (each case typed by its model); table errors get their wire code."""
        try:
            return await self._route(conn, request)
        except TableError as problem:
            raise wire_error(problem) from None

    async def _route(self, conn: Connection, request: protocol.Request) -> dict[str, Any]:
        tables = self.tables
        match request:
            case protocol.Hello(name=name, events=events, player_key=player_key):
                conn.name = name.strip() or "Player"
                conn.wants_events = events
                tables.identify(conn, None if player_key is None else player_hash(player_key))
                # `replica`: one of several processes behind a balancer (the web client then reopens
                # its socket with the room named, for the balancer's room affinity: docs/scaling.md).
                return {"name": conn.name, "server": SERVER_NAME, "rulesets": ruleset_names(),
                        "ruleset_info": ruleset_info(), "bots": bot_names(),
                        "protocol": protocol.PROTOCOL_VERSION, "chat_phrases": list(chat.PHRASES),
                        **({"replica": self.replica_id} if self.replica_id else {})}
            case protocol.Ping():
                return {}
            case protocol.ListRooms(subscribe=subscribe):
                tables.lobby.subscribe(conn, subscribe)
                return {"rooms": await tables.lobby.rooms()}
            case protocol.CreateRoom():
                conn.count_new_room()
                return await tables.create_room(conn, request.new_room())
            case protocol.Join(room_id=room_id, seat=seat):
                return await tables.join(conn, room_id, seat)
            case protocol.Resume(room_id=room_id, token=token):
                return await tables.resume(conn, room_id, token)
            case protocol.Watch(room_id=room_id):
                return await tables.watch(conn, room_id)
            case protocol.Leave():
                return await tables.leave(conn)
            case protocol.AddBot(seat=seat, bot=bot):
                return await tables.add_bot(conn, seat, bot)
            case protocol.RemoveBot(seat=seat):
                return await tables.remove_bot(conn, seat)
            case protocol.Start():
                return await tables.start(conn)
            case protocol.Act(action=action, seat=seat):
                return await tables.act(conn, action, seat)
            case protocol.Ready():
                return await tables.ready(conn)
            case protocol.EndGame():
                return await tables.end(conn)
            case protocol.GetRecords(room_id=room_id):
                return await tables.records(conn, room_id)
            case protocol.Chat(text=text, phrase=phrase):
                return await tables.say(conn, text, phrase)
            case protocol.MuteChat(seat=seat, muted=muted):
                return await tables.mute_chat(conn, seat, muted)
            case protocol.PlayAgain():
                return await tables.play_again(conn)
            case protocol.GetState():
                tables.send_state(conn)
                return {}
            case protocol.HintRequest():
                return await tables.hint(conn)
            case protocol.Daily(player_key=player_key):
                conn.count_new_room()
                return await self.daily.start(conn, player_key)
            case protocol.DailyDealResults(deal=deal):
                return await self.daily.deal_results(conn, deal)
            case protocol.Leaderboard(day=day, limit=limit):
                return await self.daily.ranking(conn, day, limit)
            case protocol.Replay(record=record):
                return replay_answer(record)
        raise ProtocolError("unknown_type", f"no handler for {request.type!r}")

    # ---------------------------------------------------------------- connections

    async def handle(self, websocket: ServerConnection) -> None:
        """One WebSocket connection, from handshake to close."""
        request = websocket.request
        headers = request.headers if request is not None else None
        address = client_address(websocket.remote_address, headers, self.trusted_proxies)
        limit = self.limits.connections_per_address
        if limit and self.connections_by_address.counts[address] >= limit:
            self.metrics.limit_refusals.labels("connections_per_address").inc()
            log.info("refused connection", extra={"fields": {"remote": address, "reason": "per address"}})
            await websocket.close(CLOSE_TOO_MANY_CONNECTIONS,
                                  f"too many connections from your address (at most {limit})")
            return
        conn = Connection(websocket, self, address)
        self.connections.add(conn)
        self.connections_by_address.add(address)
        self.metrics.connections_opened.inc()
        log.info("connection opened", extra={"fields": {"remote": address}})
        try:
            await self._read_frames(conn)
        except ConnectionClosed:
            pass
        finally:
            conn.closing = True
            self.connections.discard(conn)
            self.connections_by_address.remove(address)
            await self.tables.disconnect(conn)
            conn.stop_writer()
            self.metrics.connections_closed.labels(str(websocket.close_code)).inc()
            log.info("connection closed", extra={"fields": {"code": websocket.close_code}})

    async def _read_frames(self, conn: Connection) -> None:
        """Answer frames until the connection closes."""
        websocket = conn.websocket
        while True:
            frame = await websocket.recv()
            conn.heard = time.monotonic()
            await conn.receive(frame)

    async def _close_idle_connections(self, idle: float) -> None:
        """Close (4408) every connection that sent nothing for `idle` seconds, in one sweep every quarter
        of that (at most every 5 s): a timer per connection, rearmed at every frame, cost more CPU than
        the frame's own work. A connection is closed between `idle` and 1.25 times `idle` after its last
        frame."""
        every = min(max(idle / 4, 0.02), 5.0)
        while True:
            await asyncio.sleep(every)
            cutoff = time.monotonic() - idle
            for conn in [conn for conn in self.connections if conn.heard < cutoff and not conn.closing]:
                self.metrics.limit_refusals.labels("idle").inc()
                conn.close(CLOSE_IDLE, f"idle: no message for {idle:g} seconds")

    def connection_kinds(self) -> list[str]:
        """Each open connection's kind: player (holds a seat), spectator (in a room) or lobby."""
        kinds = []
        for conn in self.connections:
            membership = self.tables.members.get(conn)
            if membership is None:
                kinds.append("lobby")
            elif facts.seat_of(membership.room.table, membership.participant) is not None:
                kinds.append("player")
            else:
                kinds.append("spectator")
        return kinds

    async def health(self) -> dict[str, Any]:
        """The `/health` report."""
        store_ok = await self.timed_store.ping()
        recent = sorted(self.request_seconds)

        def ms(share: float) -> float | None:
            return round(recent[min(len(recent) - 1, int(share * len(recent)))] * 1000, 3) if recent else None

        archive: dict[str, Any] | None = None
        archive_ok = True
        if self.archive is not None:
            stats = self.archive.stats()
            # Failing writes waiting: play goes on, the sessions stay in the store until written.
            archive_ok = stats.healthy or stats.pending == 0
            archive = {"kind": self.archive.kind, "healthy": stats.healthy, "pending": stats.pending,
                       "written": stats.written, "already": stats.already, "failures": stats.failures,
                       "last_error": stats.last_error}
        return {"status": "ok" if store_ok and archive_ok else "degraded", "rooms": len(self.tables.rooms),
                "connections": len(self.connections), "store": self.store.kind,
                "pid": os.getpid(), "replica": self.replica_id,
                "requests": {"count": len(recent), "p50_ms": ms(0.5), "p99_ms": ms(0.99)},
                "archive": archive}

    def scrape(self) -> bytes:
        """The `/metrics` page: the gauges brought up to date, then every metric."""
        self.metrics.set_connections(self.connection_kinds())
        self.metrics.set_rooms((room_kind(room.table), facts.status(room.table))
                               for room in self.tables.rooms.values())
        if self.archive is not None:
            self.metrics.archive_pending.set(self.archive.stats().pending)
        return self.metrics.exposition()

    async def start(self, host: str, port: int, unix_path: str | None = None) -> tuple[str, int]:
        """Join the other processes on the store, load the stored rooms and listen; returns the bound
        address (port 0 picks a free one). `unix_path`: listen on that Unix socket too, for a balancer
        on the same host (a write to a Unix socket costs the kernel a third of one to loopback TCP,
        and the server writes five frames per action: docs/benchmarks.md)."""
        await self.tables.join_cluster()
        with contextlib.suppress(Exception):  # a store away now is reported by its own errors
            if await self.store.old_key_names():
                log.error("the store holds rooms under the key names of an older version: stop every "
                          "server and run python -m server.store.migrate (docs/scaling.md, Redis Cluster)")
        await self.tables.registry.load_all()
        options: dict[str, Any] = {
            "process_request": make_process_request(self.static_dir, self.health, self.scrape, self.metrics,
                                                    self.api),
            "server_header": SERVER_HEADER,
            "max_size": self.limits.hard_frame_bytes,
            "compression": self.compression,
            "ping_interval": self.limits.ping_interval or None,
            "ping_timeout": self.limits.ping_timeout or None,
            "close_timeout": self.limits.close_timeout,
        }
        self.server = await serve(self.handle, host, port, **options)
        if unix_path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(unix_path)  # left by a process that was killed
            self.unix_server = await unix_serve(self.handle, unix_path, **options)
        self.spawn(watch_loop_lag(self.metrics.observe_loop_lag))
        if self.archive is not None:
            self.archive.start()
        if self.limits.idle_seconds:
            self.spawn(self._close_idle_connections(self.limits.idle_seconds))
        sockname = next(iter(self.server.sockets)).getsockname()
        return str(sockname[0]), int(sockname[1])

    async def stop(self) -> None:
        """Close every connection, stop bots and close the store."""
        for listening in (self.server, self.unix_server):
            if listening is not None:
                listening.close()
                await listening.wait_closed()
        await self.tables.close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.archive is not None:
            await self.archive.stop()
        await self.store.close()
