"""Limits (docs/protocol.md "Limits"): connections and new rooms per client address, idle and half-open
connections, the trusted proxy's X-Forwarded-For, and the Server header without a version."""

from __future__ import annotations

import asyncio
import base64
import os
import struct
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from server_helpers import LiveServer
from websockets.asyncio.client import ClientConnection, connect, unix_connect
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed

from server.__main__ import parse_args
from server.client import ServerError, WhistClient
from server.http import UNIX_PEER, client_address, parse_networks
from server.limits import CLOSE_IDLE, CLOSE_TOO_MANY_CONNECTIONS
from server.server import WhistServer
from server.settings import Limits, limits_from
from server.store import MemoryStore

StartServer = Callable[..., Awaitable[LiveServer]]


@pytest.fixture
async def start_server(tmp_path: Path) -> AsyncIterator[StartServer]:
    """Servers on the memory store with the limits a test asks for; all stopped at the end."""
    servers: list[WhistServer] = []

    async def start(limits: Limits, trusted_proxies: tuple[str, ...] = ()) -> LiveServer:
        server = WhistServer(MemoryStore(), bot_delay=0.0, static_dir=tmp_path, limits=limits,
                             trusted_proxies=trusted_proxies)
        servers.append(server)
        host, port = await server.start("127.0.0.1", 0)
        return LiveServer(server, host, port)

    yield start
    for server in servers:
        await server.stop()


async def close_code_of(websocket: ClientConnection) -> tuple[int | None, str | None]:
    """Read until the server closes; its close code and reason."""
    with pytest.raises(ConnectionClosed):
        while True:
            await asyncio.wait_for(websocket.recv(), 30)
    assert websocket.close_code is not None
    return websocket.close_code, websocket.close_reason


async def test_connections_past_the_per_address_limit_are_closed_with_1013(start_server: StartServer) -> None:
    live = await start_server(Limits(connections_per_address=3))
    kept = [await WhistClient.connect(live.url, name=f"P{n}") for n in range(3)]
    async with connect(live.url) as extra:
        code, reason = await close_code_of(extra)
    assert code == CLOSE_TOO_MANY_CONNECTIONS == 1013 and reason is not None and "at most 3" in reason
    assert [await client.request("ping") for client in kept] == [{}, {}, {}], "the others are untouched"
    await kept[0].close()
    # Once one has gone, there is room again (the server notices the close just after the client).
    for _ in range(500):
        if live.server.connections_by_address.counts["127.0.0.1"] < 3:
            break
        await asyncio.sleep(0.01)
    again = await WhistClient.connect(live.url, name="Again")
    assert await again.request("ping") == {}
    for client in (*kept[1:], again):
        await client.close()


async def test_rooms_past_the_per_address_hourly_limit_get_rate_limited(start_server: StartServer) -> None:
    live = await start_server(Limits(rooms_per_address_per_hour=2))
    first = await WhistClient.connect(live.url, name="First")
    second = await WhistClient.connect(live.url, name="Second")
    await first.create_room("solo-whist", seat=0, listed=True)
    await second.create_room("solo-whist", seat=0, listed=True)
    for client in (first, second):  # a new connection does not reset the address's count
        with pytest.raises(ServerError) as refused:
            await client.create_room("couleur", seat=0, listed=True)
        assert refused.value.code == "rate_limited" and "your address" in refused.value.message
        with pytest.raises(ServerError) as refused:
            await client.request("daily")
        assert refused.value.code == "rate_limited"
    assert len(live.server.tables.rooms) == 2, "a refused room is not created"
    for client in (first, second):
        await client.close()


async def test_an_idle_connection_is_closed_with_4408(start_server: StartServer) -> None:
    live = await start_server(Limits(idle_seconds=0.2))
    async with connect(live.url) as idle:
        code, reason = await close_code_of(idle)
    assert code == CLOSE_IDLE == 4408 and reason is not None and "idle" in reason


async def test_a_connection_that_keeps_talking_outlives_the_idle_limit(start_server: StartServer) -> None:
    # The idle sweep looks at the last frame of each connection, not at when it opened.
    idle = 2.0
    live = await start_server(Limits(idle_seconds=idle))
    talker = await WhistClient.connect(live.url, name="Talker")
    started = asyncio.get_running_loop().time()
    while asyncio.get_running_loop().time() - started < 2.5 * idle:
        await talker.request("ping")
        await asyncio.sleep(0.05)
    await talker.request("ping")  # still open: answered
    assert all(not conn.closing for conn in live.server.connections)
    await talker.close()


async def test_a_connection_that_answers_no_ping_is_closed(start_server: StartServer) -> None:
    # A half-open connection: the handshake done, then silence (no pong). The server pings, waits
    # ping_timeout, and closes with 1011.
    live = await start_server(Limits(ping_interval=0.1, ping_timeout=0.1, idle_seconds=None))
    host, port = live.url.removeprefix("ws://").removesuffix("/ws").rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    assert head.startswith(b"HTTP/1.1 101")
    opcodes, close_code = [], None
    while close_code is None:
        first, length = await asyncio.wait_for(reader.readexactly(2), 30)
        payload = await reader.readexactly(length & 0x7F)  # control frames are short and unmasked
        opcodes.append(first & 0x0F)
        if first & 0x0F == 0x8:
            close_code = struct.unpack("!H", payload[:2])[0]
    writer.close()
    assert opcodes[0] == 0x9, "the server pinged first"
    assert close_code == 1011
    for _ in range(500):
        if not live.server.connections:
            break
        await asyncio.sleep(0.01)
    assert not live.server.connections


def test_client_address_trusts_x_forwarded_for_only_from_a_trusted_proxy() -> None:
    trusted = parse_networks(["10.0.0.0/8", "127.0.0.1"])
    headers = Headers([("X-Forwarded-For", "198.51.100.7, 203.0.113.9"), ("X-Forwarded-For", "10.1.2.3")])
    assert client_address(("192.0.2.1", 5000), headers, trusted) == "192.0.2.1", "an untrusted peer"
    assert client_address(("192.0.2.1", 5000), headers, []) == "192.0.2.1"
    # From the proxy: the right-most hop that is not a proxy; the client-written left part is ignored.
    assert client_address(("10.0.0.2", 5000), headers, trusted) == "203.0.113.9"
    assert client_address(("127.0.0.1", 5000), Headers(), trusted) == "127.0.0.1", "no header"
    only_proxies = Headers([("X-Forwarded-For", "10.9.9.9")])
    assert client_address(("10.0.0.2", 5000), only_proxies, trusted) == "10.0.0.2"
    with pytest.raises(ValueError):
        parse_networks(["not-an-address"])


async def test_behind_a_trusted_proxy_the_forwarded_address_is_limited(start_server: StartServer) -> None:
    live = await start_server(Limits(connections_per_address=1), trusted_proxies=("127.0.0.1",))
    alice = await connect(live.url, additional_headers={"X-Forwarded-For": "203.0.113.5"})
    bob = await connect(live.url, additional_headers={"X-Forwarded-For": "203.0.113.6"})
    await alice.send('{"type": "ping", "id": 1}')
    await bob.send('{"type": "ping", "id": 1}')
    assert '"ok"' in str(await asyncio.wait_for(alice.recv(), 30))
    assert '"ok"' in str(await asyncio.wait_for(bob.recv(), 30))
    async with connect(live.url, additional_headers={"X-Forwarded-For": "203.0.113.5"}) as alice_again:
        assert (await close_code_of(alice_again))[0] == 1013
    assert set(live.server.connections_by_address.counts) == {"203.0.113.5", "203.0.113.6"}
    await alice.close()
    await bob.close()


def test_client_address_on_the_unix_socket_is_the_balancers_forwarded_one() -> None:
    # A Unix socket's peer address is a string (no host, no port): the balancer on this host.
    headers = Headers([("X-Forwarded-For", "198.51.100.7, 203.0.113.9")])
    assert client_address("", headers, []) == "203.0.113.9"
    assert client_address("", Headers(), []) == UNIX_PEER, "no header: one address for the socket"


async def test_the_unix_socket_serves_and_limits_the_forwarded_address(tmp_path: Path) -> None:
    server = WhistServer(MemoryStore(), bot_delay=0.0, static_dir=tmp_path,
                         limits=Limits(connections_per_address=1))
    socket_path = str(tmp_path / "whist.sock")
    await server.start("127.0.0.1", 0, socket_path)
    try:
        def through_balancer(address: str) -> Any:
            return unix_connect(socket_path, "ws://localhost/ws",
                                additional_headers={"X-Forwarded-For": address})

        alice = await through_balancer("203.0.113.5")
        await alice.send('{"type": "ping", "id": 1}')
        assert '"ok"' in str(await asyncio.wait_for(alice.recv(), 30))
        async with through_balancer("203.0.113.6") as bob:
            await bob.send('{"type": "ping", "id": 1}')
            assert '"ok"' in str(await asyncio.wait_for(bob.recv(), 30))
            async with through_balancer("203.0.113.5") as alice_again:
                assert (await close_code_of(alice_again))[0] == 1013
        await alice.close()
    finally:
        await server.stop()


async def test_without_a_trusted_proxy_x_forwarded_for_is_ignored(start_server: StartServer) -> None:
    live = await start_server(Limits(connections_per_address=1))
    first = await connect(live.url, additional_headers={"X-Forwarded-For": "203.0.113.5"})
    async with connect(live.url, additional_headers={"X-Forwarded-For": "203.0.113.6"}) as second:
        assert (await close_code_of(second))[0] == 1013, "a client cannot choose its own address"
    await first.close()


async def test_the_server_header_names_no_version(live: LiveServer) -> None:
    def server_header() -> str:
        with urllib.request.urlopen(live.http + "/health", timeout=10) as response:
            return str(response.headers["Server"])

    assert await asyncio.to_thread(server_header) == "whist-server"
    async with connect(live.url) as websocket:
        assert websocket.response is not None
        assert websocket.response.headers["Server"] == "whist-server"


def test_the_limit_flags() -> None:
    args = parse_args(["--max-connections-per-address", "5", "--max-rooms-per-address", "7",
                       "--idle-timeout", "0", "--ping-interval", "15", "--ping-timeout", "9",
                       "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "::1", "--rate-limit", "4"])
    assert limits_from(args) == Limits(rate=4.0, burst=8.0, connections_per_address=5,
                                       rooms_per_address_per_hour=7, idle_seconds=None,
                                       ping_interval=15.0, ping_timeout=9.0)
    assert args.trusted_proxy == ["10.0.0.0/8", "::1"]
    assert limits_from(parse_args([])) == Limits()
    with pytest.raises(SystemExit):
        parse_args(["--trusted-proxy", "proxy.example"])
