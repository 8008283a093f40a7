"""One client's WebSocket connection: its rate bucket and strikes, its outgoing queue, and one answer
per frame. What it asks for is served by its host (the `WhistServer`, through `ConnectionHost`)."""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Awaitable
from typing import Any, Protocol

from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed

from . import protocol
from .limits import AddressWindow
from .metrics import Metrics
from .protocol import ProtocolError, RequestId
from .settings import Limits

log = logging.getLogger("whist.app")

# The errors that count as strikes (`Limits.max_strikes`).
ABUSE_CODES = frozenset(
    ("bad_json", "bad_msgpack", "unknown_type", "invalid_message", "frame_too_large", "rate_limited")
)


class ConnectionHost(Protocol):
    """What a connection needs from the server that accepted it."""

    limits: Limits
    metrics: Metrics
    rooms_by_address: AddressWindow  # rooms created per client address (the hourly limit)
    request_seconds: collections.deque[float]  # how long the last requests took (for /health)

    def spawn(self, coroutine: Awaitable[Any]) -> None:
        """Run a background task."""

    async def dispatch(self, conn: Connection, request: protocol.Request) -> dict[str, Any]:
        """The answer to a validated request."""


class Connection:
    """One client: its name, encoding, room and seat token, bucket and outgoing queue."""

    def __init__(self, websocket: ServerConnection, app: ConnectionHost, address: str = "") -> None:
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
        if self.outbox.qsize() >= self.app.limits.queued_frames:
            # A client that reads nothing must not hold the server's memory.
            self.app.metrics.limit_refusals.labels("not_reading").inc()
            self.close(1008, "not reading: too many messages waiting")
            return
        if message.get("type") == "error":
            self.app.metrics.count_error(str(message.get("code")))
        frame = protocol.encode_frame(message, self.binary)
        transport = self.websocket.transport
        if (self.outbox.empty() and transport is not None
                and transport.get_write_buffer_size() < self.app.limits.direct_write_bytes):
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
            deadline = time.monotonic() + self.app.limits.close_flush_seconds
            while not self.outbox.empty() and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            await self.websocket.close(code, reason)

        self.app.spawn(close_after_flush())

    def count_new_room(self) -> None:
        """Count a room this connection is about to open, or refuse it (`rate_limited`) past the limits:
        per connection per minute, and per client address per hour."""
        now = time.monotonic()
        limits = self.app.limits
        while self.new_rooms and self.new_rooms[0] < now - limits.room_window:
            self.new_rooms.popleft()
        if len(self.new_rooms) >= limits.rooms_per_connection:
            raise ProtocolError("rate_limited", f"too many new rooms: at most {limits.rooms_per_connection} "
                                f"per {limits.room_window:g} seconds from one connection; this one was not "
                                "created")
        per_hour = limits.rooms_per_address_per_hour
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
            data = protocol.decode_frame(frame, self.app.limits.frame_bytes)
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
                limits = self.app.limits
                while self.strikes and self.strikes[0] < now - limits.strike_window:
                    self.strikes.popleft()
                if len(self.strikes) >= limits.max_strikes and not self.closing:
                    self.app.metrics.rate_limit_closes.inc()
                    self.close(1008, f"too many bad or excess messages ({problem.code})")
        except Exception as failure:
            log.exception("request failed")
            # The details (which may name hosts or files) go to the log, not to the client.
            self.push(protocol.error(request_id, "internal_error",
                                     f"the server failed on this request ({type(failure).__name__}); "
                                     "nothing was applied"))
        return kind, "error"
