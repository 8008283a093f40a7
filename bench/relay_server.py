"""The floor of the human-paced load benchmark (`bench.load_human`): a bare `websockets` relay.

    python -m bench.relay_server

Listens on a free loopback port, prints `relay listening on ws://127.0.0.1:<port>/`, and sends every
message to all the connections of its group (the connections opened on the same path) until stopped.
"""

from __future__ import annotations

import asyncio
import gc

from websockets.asyncio.server import ServerConnection, broadcast, serve

from server.gc_policy import FullPasses

groups: dict[str, set[ServerConnection]] = {}


async def relay(websocket: ServerConnection) -> None:
    """Relay each message of this connection to its whole group."""
    assert websocket.request is not None
    group = groups.setdefault(websocket.request.path, set())
    group.add(websocket)
    try:
        async for message in websocket:
            broadcast(group, message)
    finally:
        group.discard(websocket)


async def main() -> None:
    """Serve until stopped."""
    async with serve(relay, "127.0.0.1", 0, max_size=2**20, compression=None) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"relay listening on ws://127.0.0.1:{port}/", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    # The garbage collector as in the server (server/gc_policy.py): with CPython's rule, full passes of
    # 120-190 ms over the relay's 5,000 connections were the floor's p99 at 1,000 groups.
    gc.freeze()
    FullPasses().install()
    asyncio.run(main())
