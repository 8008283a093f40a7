"""CPU time of one 1.5 KB write to a loopback TCP socket and to a Unix socket, with a reader draining the
other end in another process: `python -m bench.socket_write`. Why the cluster's balancer reaches its
replicas on Unix sockets (the server writes five frames per action): docs/benchmarks.md."""

from __future__ import annotations

import os
import socket
import tempfile
import time
from pathlib import Path


def connected_pair(kind: str, directory: Path) -> tuple[socket.socket, socket.socket]:
    """A writer and a reader socket of that kind ("tcp" or "unix"), connected."""
    if kind == "tcp":
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        writer = socket.create_connection(listener.getsockname())
        writer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    else:
        path = str(directory / "write.sock")
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(path)
        listener.listen(1)
        writer = socket.socket(socket.AF_UNIX)
        writer.connect(path)
    reader, _ = listener.accept()
    listener.close()
    return writer, reader


def cpu_per_write(kind: str, writes: int = 50_000, size: int = 1500) -> float:
    """Microseconds of the writer's CPU per write."""
    with tempfile.TemporaryDirectory() as directory:
        writer, reader = connected_pair(kind, Path(directory))
        child = os.fork()
        if child == 0:  # the reader: drain everything, then leave
            writer.close()
            received = 0
            while received < writes * size:
                data = reader.recv(65536)
                if not data:
                    break
                received += len(data)
            os._exit(0)
        reader.close()
        message = b"x" * size
        started = time.process_time()
        for number in range(writes):
            writer.sendall(message)
            if number % 64 == 0:
                time.sleep(0)  # let the reader run
        spent = time.process_time() - started
        writer.close()
        os.waitpid(child, 0)
    return spent / writes * 1e6


if __name__ == "__main__":
    for kind in ("tcp", "unix", "tcp", "unix"):
        print(f"{kind}: {cpu_per_write(kind):.1f} us of CPU per write")
