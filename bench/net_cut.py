"""A network cut of one process from Redis, on one host without a firewall (`bench/chaos.py`).

The process runs in a network namespace of its own (`ip netns add`), whose loopback has nothing but
relays: for each Redis and sentinel port, a socket listening on 127.0.0.1:PORT *inside* the namespace
whose connections this process forwards to 127.0.0.1:PORT of the host. The process reaches Redis only
through them (a sentinel names the primary as 127.0.0.1:PORT, which is a relay there too); the balancer
reaches it on its Unix socket, which no network namespace hides. `cut()` stops forwarding in both
directions without closing anything, as a dropped link does: what each side sends waits (in the
kernel's buffers, then the relay's), new connections are accepted and held; `heal()` lets it all through,
late: a command sent before the cut reaches Redis after it, as it would after a real partition heals.

Linux only, as root: `setns(2)` through libc (Python 3.11 has no `os.setns`). The listening sockets are
made with the calling thread moved into the namespace for a moment (a socket belongs to the namespace
of the thread that made it); the forwarding connections are made back in the host's.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import socket
import subprocess
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def available() -> bool:
    """Whether a network namespace can be made here (root, `ip` installed, the kernel allows it)."""
    name = f"whist-probe-{os.getpid()}"
    try:
        made = subprocess.run(["ip", "netns", "add", name], capture_output=True, check=False).returncode == 0
    except OSError:
        return False
    if made:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, check=False)
    return made


class NetCut:
    """One network namespace with relays of `ports` (see the module docstring)."""

    def __init__(self, name: str, ports: Iterable[int]) -> None:
        self.name = name
        self.ports = sorted(set(ports))
        self.path = Path("/run/netns") / name
        self.open = asyncio.Event()
        self.open.set()
        self._servers: list[asyncio.Server] = []
        self._connections: set[asyncio.StreamWriter] = set()
        self.held = 0  # connections accepted while cut (for the report)

    async def start(self) -> None:
        """Make the namespace and its loopback, and listen on every port inside it."""
        subprocess.run(["ip", "netns", "add", self.name], check=True, capture_output=True)
        subprocess.run(["ip", "-n", self.name, "link", "set", "lo", "up"], check=True, capture_output=True)
        host = os.open("/proc/self/ns/net", os.O_RDONLY)
        target = os.open(self.path, os.O_RDONLY)
        listeners = []
        try:
            _setns(target)
            try:
                for port in self.ports:
                    listener = socket.socket()
                    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    listener.bind(("127.0.0.1", port))
                    listener.listen(256)
                    listener.setblocking(False)
                    listeners.append((port, listener))
            finally:
                _setns(host)
        finally:
            os.close(host)
            os.close(target)
        for port, listener in listeners:
            self._servers.append(await asyncio.start_server(self._relay(port), sock=listener))

    def preexec(self) -> Callable[[], None]:
        """For `subprocess.Popen(preexec_fn=...)`: the child runs in the namespace (and gets SIGKILL when
        the thread that started it ends, as the launcher's children do)."""
        path = str(self.path)

        def enter() -> None:
            _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            fd = os.open(path, os.O_RDONLY)
            try:
                _setns(fd)
            finally:
                os.close(fd)

        return enter

    def cut(self) -> None:
        """Stop forwarding, both ways."""
        self.open.clear()

    def heal(self) -> None:
        """Forward again (what waited goes first)."""
        self.open.set()

    def _relay(self, port: int) -> Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]:
        async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self._connections.add(writer)
            try:
                if not self.open.is_set():
                    self.held += 1
                await self.open.wait()
                try:
                    up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
                except OSError:
                    return
                self._connections.add(up_writer)
                try:
                    ways = [asyncio.ensure_future(self._pipe(reader, up_writer)),
                            asyncio.ensure_future(self._pipe(up_reader, writer))]
                    _, pending = await asyncio.wait(ways, return_when=asyncio.FIRST_COMPLETED)
                    for way in pending:
                        way.cancel()
                    await asyncio.gather(*ways, return_exceptions=True)
                finally:
                    self._connections.discard(up_writer)
                    up_writer.close()
            finally:
                self._connections.discard(writer)
                writer.close()

        return relay

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while True:
                await self.open.wait()
                data = await reader.read(65536)
                if not data:
                    return
                await self.open.wait()  # read just before a cut: it waits for the heal
                writer.write(data)
                await writer.drain()

    async def close(self) -> None:
        """Stop the relays and remove the namespace."""
        self.open.set()
        for server in self._servers:
            server.close()
        for writer in list(self._connections):
            writer.close()
        for server in self._servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 5)
        subprocess.run(["ip", "netns", "del", self.name], capture_output=True, check=False)
