"""The transport choices made for latency: the event loop (uvloop when installed) and websocket
compression (off unless asked for)."""

from __future__ import annotations

import asyncio
import importlib.util
import json

import pytest
from websockets.asyncio.client import connect

from server.__main__ import loop_factory, parse_args
from server.server import WhistServer
from server.store import MemoryStore


def test_the_event_loop_is_uvloop_when_installed_unless_told_otherwise() -> None:
    assert loop_factory("asyncio") is None
    factory = loop_factory("auto")
    if importlib.util.find_spec("uvloop") is None:
        assert factory is None
    else:
        assert factory is not None
        loop = factory()
        try:
            assert type(loop).__module__.startswith("uvloop")
        finally:
            loop.close()
    assert parse_args([]).loop == "auto"


@pytest.mark.parametrize(("compression", "offered"), [(None, False), ("deflate", True)])
async def test_permessage_deflate_only_when_asked_for(compression: str | None, offered: bool) -> None:
    server = WhistServer(MemoryStore(), compression=compression)
    host, port = await server.start("127.0.0.1", 0)
    try:
        # The client offers permessage-deflate (as browsers do); the server takes it up only if told to.
        async with connect(f"ws://{host}:{port}/ws") as websocket:
            assert websocket.response is not None
            extensions = websocket.response.headers.get("Sec-WebSocket-Extensions", "")
            assert ("permessage-deflate" in extensions) is offered
            await websocket.send('{"type": "ping", "id": 1}')
            answer = await asyncio.wait_for(websocket.recv(), 5)
            assert '"ok"' in str(answer)
    finally:
        await server.stop()
    assert parse_args([]).compression == "none"
    assert parse_args(["--compression", "deflate"]).compression == "deflate"


@pytest.mark.parametrize("compression", [None, "deflate"])
async def test_pushed_frames_of_every_header_size_arrive_whole_and_in_order(compression: str | None) -> None:
    # Pushes are written at once when nothing waits before them (no queue): payloads needing the 7-bit,
    # 16-bit and 64-bit length forms, as text and as msgpack, must reach a plain websockets client
    # intact and in order.
    import msgpack  # type: ignore[import-untyped]

    server = WhistServer(MemoryStore(), compression=compression)
    host, port = await server.start("127.0.0.1", 0)
    try:
        async with connect(f"ws://{host}:{port}/ws", max_size=2**22) as websocket:
            await websocket.send('{"type": "ping", "id": 1}')
            assert '"ok"' in str(await asyncio.wait_for(websocket.recv(), 5))
            (connection,) = server.connections
            sizes = [0, 10, 125, 126, 1000, 65535, 65536, 300_000]
            for binary in (False, True):
                connection.binary = binary
                for size in sizes:
                    connection.push({"type": "note", "text": "x" * size})
                for size in sizes:
                    frame = await asyncio.wait_for(websocket.recv(), 5)
                    assert isinstance(frame, bytes) is binary
                    message = msgpack.unpackb(frame) if binary else json.loads(frame)
                    assert message == {"type": "note", "text": "x" * size}
    finally:
        await server.stop()
