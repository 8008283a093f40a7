"""The load generator's WebSocket client: picows (a Cython WebSocket library), so that the generator's
own cost per frame stays small beside the server's on the same two cores.

With the `websockets` client the two generator processes spent 1.3-1.4 ms of CPU per action at 1,000
human-paced tables (six frames each), more than the server itself: the machine ran out of cores and the
server waited for one (docs/benchmarks.md). picows parses frames in C and hands each one to a callback,
with no task and no queue per message. It answers the server's keepalive pings by itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from picows import WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

FrameHandler = Callable[[bytes], None]


class _Listener(WSListener):
    def __init__(self, socket: FastSocket) -> None:
        super().__init__()
        self.socket = socket

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type in (WSMsgType.BINARY, WSMsgType.TEXT):
            self.socket.deliver(frame.get_payload_as_bytes())
        elif frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        self.socket.lost()


class FastSocket:
    """One client connection: `send(bytes)`; each message received goes to `on_message` (dropped while
    none is set); `closed` is set once the connection is gone."""

    def __init__(self) -> None:
        self.transport: WSTransport | None = None
        self.on_message: FrameHandler | None = None
        self.on_lost: Callable[[], None] | None = None
        self.closed = asyncio.Event()

    @classmethod
    async def connect(cls, url: str, timeout: float = 120.0, source: str | None = None) -> FastSocket:
        """Open a connection (no compression; pings answered, none sent: a starved generator must not
        close its own connections for a late pong). `source`: the local address to connect from (on
        loopback, 127.0.0.x: each source address has its own range of ephemeral ports)."""
        socket = cls()
        extra: dict[str, Any] = {"local_addr": (source, 0)} if source else {}
        transport, _ = await ws_connect(lambda: _Listener(socket), url, websocket_handshake_timeout=timeout,
                                        enable_auto_pong=True, enable_auto_ping=False,
                                        max_frame_size=8 * 1024 * 1024, **extra)
        socket.transport = transport
        return socket

    def send(self, message: bytes) -> None:
        """Send one binary message (ConnectionError once the connection is gone)."""
        if self.transport is None or self.closed.is_set():
            raise ConnectionError("connection closed")
        self.transport.send(WSMsgType.BINARY, message)

    def deliver(self, message: bytes) -> None:
        """A message arrived (called by the listener)."""
        if self.on_message is not None:
            self.on_message(message)

    def lost(self) -> None:
        """The connection is gone (called by the listener)."""
        self.closed.set()
        if self.on_lost is not None:
            self.on_lost()

    async def close(self) -> None:
        """Close the connection and wait until it is gone."""
        if self.transport is None or self.closed.is_set():
            return
        self.transport.send_close()
        self.transport.disconnect()
        await self.transport.wait_disconnected()
