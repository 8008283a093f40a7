"""The WebSocket server: connections, per-connection limits, and the dispatch of requests to rooms."""

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

from websockets.asyncio.server import Server, ServerConnection, broadcast, serve, unix_serve
from websockets.exceptions import ConnectionClosed

from . import protocol
from .bots import bot_names
from .challenge import DailyChallenge
from .coord import Coordination
from .http import DEFAULT_STATIC_DIR, client_address, make_process_request, parse_networks
from .limits import CLOSE_IDLE, CLOSE_TOO_MANY_CONNECTIONS, AddressCounts, AddressWindow, Limits
from .live import Tables
from .loop_lag import watch_loop_lag
from .metrics import InstrumentedStore, Metrics
from .protocol import ProtocolError, RequestId
from .replay_service import replay_answer
from .rules import ruleset_names
from .store import Store
from .table import Table, TableError, chat, errors, facts

log = logging.getLogger("whist.app")

SERVER_NAME = "whist-server 0.1.0"
# The HTTP `Server` header: the product only, no version (a version tells an attacker what to try).
SERVER_HEADER = "whist-server"
# Frames between 64 KiB and this size get a `frame_too_large` error; larger ones close with 1009.
HARD_MAX_FRAME = 1024 * 1024
# Protocol-level errors (bad frames, flooding) within STRIKE_WINDOW seconds that close the connection
# with 1008. A window rather than "in a row": a flooder's messages that slip through as the bucket
# refills must not wipe the slate.
MAX_STRIKES = 30
STRIKE_WINDOW = 10.0
OUTBOX_LIMIT = 5000
# A frame is written at once while the connection's write buffer holds less than this (websockets' own
# high-water mark); past it frames wait in the outbox, sent one by one as the client reads.
DIRECT_WRITE_LIMIT = 32 * 1024
# New rooms one connection may open (create_room, daily) per NEW_ROOM_WINDOW seconds: every room is
# kept (a waiting one in memory and in the lobby), so one client must not make thousands.
MAX_NEW_ROOMS = 10
NEW_ROOM_WINDOW = 60.0
ABUSE_CODES = frozenset(
    ("bad_json", "bad_msgpack", "unknown_type", "invalid_message", "frame_too_large", "rate_limited")
)
# The wire code of each table error (the table core knows no wire codes: they are mapped here).
ERROR_CODES: dict[type[TableError], str] = {
    errors.UnknownRuleset: "unknown_ruleset", errors.BadHouseRules: "bad_house_rules",
    errors.UnknownBot: "unknown_bot", errors.NoSuchRoom: "no_such_room", errors.NotInRoom: "not_in_room",
    errors.SessionOver: "session_over", errors.NotStarted: "not_started",
    errors.AlreadyStarted: "already_started", errors.AlreadySeated: "already_seated",
    errors.RoomFull: "room_full", errors.SeatTaken: "seat_taken", errors.BadToken: "bad_token",
    errors.NotHost: "not_host", errors.NotABot: "not_a_bot", errors.DailyRoom: "daily_room",
    errors.SpectatorCannotAct: "spectator_cannot_act", errors.NotYourSeat: "not_your_seat",
    errors.NotSeated: "not_seated", errors.NotYourTurn: "not_your_turn",
    errors.IllegalAction: "illegal_action", errors.MalformedAction: "malformed_action",
    errors.DealInProgress: "deal_in_progress", errors.HintsOff: "hints_off", errors.Conflict: "conflict",
    errors.StoreUnavailable: "store_unavailable", errors.MalformedChat: "malformed_chat",
    errors.SessionNotOver: "session_not_over", errors.ChatEmpty: "chat_empty",
    errors.ChatTooLong: "chat_too_long", errors.ChatMuted: "chat_muted",
    errors.ChatRateLimited: "rate_limited",
}


def wire_error(problem: TableError) -> ProtocolError:
    """A table error as the protocol's error (its stable code and message)."""
    return ProtocolError(ERROR_CODES.get(type(problem), "internal_error"), problem.message)


def room_kind(table: Table) -> str:
    """A room's kind for the metrics: daily, listed (in the lobby) or private."""
    return "daily" if table.daily is not None else "listed" if table.options.listed else "private"


@functools.cache
def ruleset_info() -> dict[str, Any]:
    """The rulesets' titles and house rules (they never change while the process runs)."""
    return protocol.ruleset_info()


class Connection:
    """One client: its name, encoding, room and seat token, bucket and outgoing queue."""

    def __init__(self, websocket: ServerConnection, app: WhistServer, address: str = "") -> None:
        self.websocket = websocket
        self.app = app
        self.address = address  # the client's address (from X-Forwarded-For behind a trusted proxy)
        self.name = "Player"
        self.wants_events = True
        self.binary = False
        self.tokens = app.limits.burst
        self.refilled = time.monotonic()
        self.strikes: collections.deque[float] = collections.deque()  # times of recent abuse errors
        self.new_rooms: collections.deque[float] = collections.deque()  # times of recent room creations
        self.outbox: asyncio.Queue[str | bytes] = asyncio.Queue()
        self.writer: asyncio.Task[None] | None = None  # started when a frame first has to wait
        self.closing = False
        self.heard = time.monotonic()  # when the client's last frame arrived (the idle limit)

    # ---------------------------------------------------------------- sending

    def push(self, message: dict[str, Any]) -> None:
        """Queue a message in the connection's current encoding (the last one the client used)."""
        if self.closing:
            return
        if self.outbox.qsize() >= OUTBOX_LIMIT:
            # A client that reads nothing must not hold the server's memory.
            self.app.metrics.limit_refusals.labels("not_reading").inc()
            self.close(1008, "not reading: too many messages waiting")
            return
        if message.get("type") == "error":
            self.app.metrics.count_error(str(message.get("code")))
        frame = protocol.encode_frame(message, self.binary)
        transport = self.websocket.transport
        if (self.outbox.empty() and transport is not None
                and transport.get_write_buffer_size() < DIRECT_WRITE_LIMIT):
            # Nothing waits before it and the socket takes data: write it now, in order, without a
            # queue and a task switch per frame (most frames of a busy server go this way). A closed
            # connection is skipped, as `send` would have raised ConnectionClosed.
            broadcast((self.websocket,), frame)
            return
        self.outbox.put_nowait(frame)
        if self.writer is None:
            # Most connections never need one: no task per connection until a frame has to wait.
            self.writer = asyncio.get_running_loop().create_task(self.write_loop())

    def stop_writer(self) -> None:
        """Stop sending queued frames (the connection is gone)."""
        if self.writer is not None:
            self.writer.cancel()

    async def write_loop(self) -> None:
        """Send queued frames in order."""
        try:
            while True:
                frame = await self.outbox.get()
                await self.websocket.send(frame)
        except ConnectionClosed:
            pass

    def close(self, code: int, reason: str) -> None:
        """Close the connection (after what is queued has been sent)."""
        if self.closing:
            return
        self.closing = True
        log.info("closing connection", extra={"fields": {"code": code, "reason": reason}})

        async def close_after_flush() -> None:
            # Let the last answers (the errors that explain the close) go out, but not forever: a
            # client that reads nothing is closed after a short wait.
            deadline = time.monotonic() + 2.0
            while not self.outbox.empty() and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            await self.websocket.close(code, reason)

        self.app.spawn(close_after_flush())

    def count_new_room(self) -> None:
        """Count a room this connection is about to open, or refuse it (`rate_limited`) past the limits:
        per connection per minute, and per client address per hour."""
        now = time.monotonic()
        while self.new_rooms and self.new_rooms[0] < now - NEW_ROOM_WINDOW:
            self.new_rooms.popleft()
        if len(self.new_rooms) >= MAX_NEW_ROOMS:
            raise ProtocolError("rate_limited", f"too many new rooms: at most {MAX_NEW_ROOMS} per "
                                f"{NEW_ROOM_WINDOW:g} seconds from one connection; this one was not created")
        per_hour = self.app.limits.rooms_per_address_per_hour
        if per_hour:
            recent = self.app.rooms_by_address.recent(self.address, now)
            if recent >= per_hour:
                self.app.metrics.limit_refusals.labels("rooms_per_address").inc()
                raise ProtocolError("rate_limited", f"too many new rooms from your address: at most "
                                    f"{per_hour} an hour; this one was not created")
            self.app.rooms_by_address.add(self.address, now)
        self.new_rooms.append(now)

    # ---------------------------------------------------------------- receiving

    def _take_token(self) -> bool:
        now = time.monotonic()
        limits = self.app.limits
        self.tokens = min(limits.burst, self.tokens + (now - self.refilled) * limits.rate)
        self.refilled = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    async def receive(self, frame: str | bytes) -> None:
        """Handle one frame: limits, decoding, validation, dispatch; always one answer."""
        started = time.perf_counter()
        kind, outcome = "invalid", "error"
        try:
            kind, outcome = await self._receive(frame)
        finally:
            seconds = time.perf_counter() - started
            self.app.request_seconds.append(seconds)
            metrics = self.app.metrics
            metrics.request_seconds.observe(seconds)
            metrics.requests.labels(kind, outcome).inc()
            if kind == "act" and outcome == "ok":
                # A room pushes a change to everyone before the request is answered: for a human's
                # action, the request's time is its action-to-push time. (Bots' actions: the room layer.)
                metrics.count_action("human")
                metrics.observe_action_to_push(seconds)

    async def _receive(self, frame: str | bytes) -> tuple[str, str]:
        """Answer one frame; returns the request's type ("invalid" if unreadable) and "ok" or "error"."""
        kind = "invalid"
        self.binary = isinstance(frame, bytes)
        request_id: RequestId | None = None
        try:
            if not self._take_token():
                limits = self.app.limits
                raise ProtocolError("rate_limited", f"too many messages: at most {limits.rate:g} per second "
                                    f"(bursts of {limits.burst:g}); this one was ignored",
                                    protocol.peek_request_id(frame))
            data = protocol.decode_frame(frame)
            raw_id = data.get("id")
            if isinstance(raw_id, int | str) and not isinstance(raw_id, bool):
                request_id = raw_id
            request = protocol.parse_request(data)
            kind = request.type
            result = await self.app.dispatch(self, request)
            self.push(protocol.ok(request.id, result))
            return kind, "ok"
        except ProtocolError as problem:
            answer_id = problem.request_id if problem.request_id is not None else request_id
            self.push(protocol.error(answer_id, problem.code, problem.message))
            if problem.code in ABUSE_CODES:
                now = time.monotonic()
                self.strikes.append(now)
                while self.strikes and self.strikes[0] < now - STRIKE_WINDOW:
                    self.strikes.popleft()
                if len(self.strikes) >= MAX_STRIKES and not self.closing:
                    self.app.metrics.rate_limit_closes.inc()
                    self.close(1008, f"too many bad or excess messages ({problem.code})")
        except Exception as failure:
            log.exception("request failed")
            # The details (which may name hosts or files) go to the log, not to the client.
            self.push(protocol.error(request_id, "internal_error",
                                     f"the server failed on this request ({type(failure).__name__}); "
                                     "nothing was applied"))
        return kind, "error"


class WhistServer:
    """The server: a room manager on a store, listening for WebSocket and HTTP on one port."""

    def __init__(
        self,
        store: Store,
        *,
        bot_delay: float = 0.6,
        static_dir: Path = DEFAULT_STATIC_DIR,
        limits: Limits | None = None,
        compression: str | None = None,
        daily_secret: str | None = None,
        replica_id: str | None = None,
        trusted_proxies: Sequence[str] = (),
        coordination: Coordination | None = None,
        bot_workers: int = 1,
    ) -> None:
        self.store = store
        self.replica_id = replica_id  # which process this is among several on one store (/health)
        self.metrics = Metrics()
        # The rooms go through a store that times every call and counts conflicts.
        self.timed_store = InstrumentedStore(store, self.metrics)
        # permessage-deflate (None: off). Frames are a few hundred bytes to a few KiB of msgpack or
        # JSON: compressing them costs more CPU on both ends than it saves on the wire.
        self.compression = compression
        # Shared with the other processes on the same store (default: this process alone owns everything).
        self.tables = Tables(self.timed_store, bot_delay, coordination=coordination, metrics=self.metrics,
                             bot_workers=bot_workers)
        # daily_secret None: the env var, else the store's
        self.daily = DailyChallenge(self.tables, self.timed_store, daily_secret)
        self.tables.listen(self.daily)
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
            case protocol.Hello(name=name, events=events):
                conn.name = name.strip() or "Player"
                conn.wants_events = events
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
            case protocol.GetRecords():
                return await tables.records(conn)
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

        return {"status": "ok" if store_ok else "degraded", "rooms": len(self.tables.rooms),
                "connections": len(self.connections), "store": self.store.kind,
                "pid": os.getpid(), "replica": self.replica_id,
                "requests": {"count": len(recent), "p50_ms": ms(0.5), "p99_ms": ms(0.99)}}

    def scrape(self) -> bytes:
        """The `/metrics` page: the gauges brought up to date, then every metric."""
        self.metrics.set_connections(self.connection_kinds())
        self.metrics.set_rooms((room_kind(room.table), facts.status(room.table))
                               for room in self.tables.rooms.values())
        return self.metrics.exposition()

    async def start(self, host: str, port: int, unix_path: str | None = None) -> tuple[str, int]:
        """Join the other processes on the store, load the stored rooms and listen; returns the bound
        address (port 0 picks a free one). `unix_path`: listen on that Unix socket too, for a balancer
        on the same host (a write to a Unix socket costs the kernel a third of one to loopback TCP,
        and the server writes five frames per action: docs/benchmarks.md)."""
        await self.tables.join_cluster()
        await self.tables.registry.load_all()
        options: dict[str, Any] = {
            "process_request": make_process_request(self.static_dir, self.health, self.scrape, self.metrics),
            "server_header": SERVER_HEADER,
            "max_size": HARD_MAX_FRAME,
            "compression": self.compression,
            "ping_interval": self.limits.ping_interval or None,
            "ping_timeout": self.limits.ping_timeout or None,
            "close_timeout": 3,  # on shutdown, do not wait long for clients that do not answer
        }
        self.server = await serve(self.handle, host, port, **options)
        if unix_path is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(unix_path)  # left by a process that was killed
            self.unix_server = await unix_serve(self.handle, unix_path, **options)
        self.spawn(watch_loop_lag(self.metrics.observe_loop_lag))
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
        await self.store.close()
