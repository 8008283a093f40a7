"""The floor of the server load benchmark (`bench.load`): a bare `websockets` echo server.

    python -m bench.echo_server

Listens on a free loopback port, prints `echo listening on ws://127.0.0.1:<port>/` and sends every
message back to its sender until it is stopped.
"""

from __future__ import annotations

import asyncio

from websockets.asyncio.server import ServerConnection, serve


async def echo(websocket: ServerConnection) -> None:
    """Send each message back."""
    async for message in websocket:
        await websocket.send(message)


async def main() -> None:
    """Serve until stopped."""
    async with serve(echo, "127.0.0.1", 0, max_size=2**20) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        print(f"echo listening on ws://127.0.0.1:{port}/", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    asyncio.run(main())
