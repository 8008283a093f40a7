"""`Cluster`: a private Redis (unless a store is given), N server replicas and HAProxy in front.

    with Cluster(replicas=2) as cluster:
        print(cluster.url)                    # http://127.0.0.1:PORT/ (the balancer)
        cluster.kill_replica(0)               # SIGKILL one replica (a crash) ...
        cluster.restart_replica(0)            # ... and start it again on the same port
        cluster.stop_redis(); cluster.start_redis()   # Redis away for a while (same port, same data)

A synchronous context manager (starting and stopping processes blocks), usable from tests, from
`bench/load.py` and from `python -m server.cluster`. Start it from the main thread (see processes.py).
"""

from __future__ import annotations

import csv
import logging
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from .haproxy import Backend, render_config
from .processes import HAPROXY, PrivateRedis, Replica, free_port, http_json, spawn, stop, wait_until

log = logging.getLogger("whist.cluster")


class Cluster:
    """The topology of docker-compose.yml as local processes. See the module docstring."""

    def __init__(self, replicas: int = 2, port: int = 0, store: str | None = None, host: str = "127.0.0.1",
                 balance: str = "leastconn", server_args: list[str] | None = None,
                 directory: Path | None = None) -> None:
        if replicas < 1:
            raise ValueError("a cluster needs at least one replica")
        self.host = host
        self.port = port or free_port(host)
        self.balance = balance
        self._own_directory = directory is None
        self.directory = directory or Path(tempfile.mkdtemp(prefix="whist-cluster-"))
        self.redis: PrivateRedis | None = None if store else PrivateRedis(self.directory / "redis")
        self.store = store or (self.redis.url if self.redis else "")
        self.replicas = [Replica(f"r{number}", self.store, self.directory, "127.0.0.1",
                                 extra_args=list(server_args or []))
                         for number in range(1, replicas + 1)]
        self.haproxy: subprocess.Popen[bytes] | None = None
        self.config_path = self.directory / "haproxy.cfg"
        self.stats_socket = self.directory / "haproxy.sock"

    # ---------------------------------------------------------------- addresses

    @property
    def url(self) -> str:
        """The balancer's HTTP address."""
        return f"http://{self.host}:{self.port}/"

    @property
    def ws_url(self) -> str:
        """The balancer's WebSocket address."""
        return f"ws://{self.host}:{self.port}/ws"

    def describe(self) -> dict[str, Any]:
        """Addresses, process ids and the log directory (the command line prints it)."""
        pids: dict[str, int | None] = {"redis": self.redis.process.pid if self.redis and self.redis.process
                                       else None}
        pids.update({replica.replica_id: replica.pid for replica in self.replicas})
        pids["haproxy"] = self.haproxy.pid if self.haproxy is not None else None
        return {"url": self.url, "store": self.store, "logs": str(self.directory),
                "replicas": {replica.replica_id: replica.url for replica in self.replicas},
                "pids": {name: pid for name, pid in pids.items() if pid is not None}}

    def server_pids(self) -> dict[str, int]:
        """replica id -> pid of its running process."""
        return {replica.replica_id: pid for replica in self.replicas if (pid := replica.pid) is not None}

    # ---------------------------------------------------------------- start and stop

    def __enter__(self) -> Cluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.stop()

    def start(self, timeout: float = 60.0) -> None:
        """Start Redis, the replicas and the balancer; return once all of them answer."""
        if self.redis is not None:
            self.redis.start()
        for replica in self.replicas:
            replica.start()
        for replica in self.replicas:
            replica.wait_ready(timeout)
        # The balancer reaches the replicas on their Unix sockets (same host); tests and operators can
        # still reach each one on its own port.
        backends = [Backend(r.replica_id, r.host, r.port, r.unix_path) for r in self.replicas]
        self.config_path.write_text(render_config(f"{self.host}:{self.port}", backends, self.balance,
                                                  stats_socket=self.stats_socket))
        log_path = self.directory / "haproxy.log"
        self.haproxy = spawn([HAPROXY, "-db", "-f", str(self.config_path)], log_path)
        wait_until(lambda: http_json(self.url + "health")[0] in (200, 503), timeout, "haproxy",
                   self.haproxy, log_path)
        self.wait_balanced(timeout)

    def stop(self) -> None:
        """Stop the balancer, the replicas (SIGTERM, clean shutdown) and the private Redis."""
        stop(self.haproxy)
        for replica in self.replicas:
            replica.terminate()
        if self.redis is not None:
            self.redis.stop()
        if self._own_directory:
            shutil.rmtree(self.directory, ignore_errors=True)

    # ---------------------------------------------------------------- failures, on purpose

    def kill_replica(self, index: int) -> None:
        """SIGKILL replica `index` (0-based): a crash."""
        self.replicas[index].kill()

    def stop_replica(self, index: int) -> None:
        """SIGTERM replica `index`: a clean shutdown (as one step of a rolling deploy)."""
        self.replicas[index].terminate()

    def restart_replica(self, index: int, timeout: float = 60.0) -> dict[str, Any]:
        """Stop replica `index` if it runs, start it again on its port, wait until the balancer sends
        it connections again; returns its /health."""
        replica = self.replicas[index]
        replica.terminate()
        replica.start()
        report = replica.wait_ready(timeout)
        self.wait_balanced(timeout)
        return report

    def stop_redis(self) -> None:
        """Stop the private Redis (SIGTERM: it saves its append-only file)."""
        self._own_redis().stop()

    def kill_redis(self) -> None:
        """SIGKILL the private Redis (writes of the last second may be lost: appendfsync everysec)."""
        self._own_redis().kill()

    def start_redis(self, timeout: float = 20.0) -> None:
        """Start the private Redis again, on the same port, with its data."""
        self._own_redis().start(timeout)

    def _own_redis(self) -> PrivateRedis:
        if self.redis is None:
            raise RuntimeError("this cluster uses an outside store (--store): it has no Redis of its own")
        return self.redis

    # ---------------------------------------------------------------- the balancer's view

    def balancer_status(self) -> dict[str, str]:
        """replica id -> the balancer's status of it (`UP`, `DOWN`, ...), from HAProxy's stats socket."""
        with socket.socket(socket.AF_UNIX) as connection:
            connection.settimeout(3)
            connection.connect(str(self.stats_socket))
            connection.sendall(b"show stat\n")
            data = b""
            while chunk := connection.recv(65536):
                data += chunk
        rows = csv.DictReader(data.decode().lstrip("# ").splitlines())
        return {row["svname"]: row["status"] for row in rows
                if row.get("pxname") == "replicas" and row.get("svname") not in ("BACKEND", "FRONTEND")}

    def wait_balanced(self, timeout: float = 60.0) -> None:
        """Wait until the balancer counts every running replica as up."""
        running = {replica.replica_id for replica in self.replicas if replica.alive()}

        def all_up() -> bool:
            status = self.balancer_status()
            return all(status.get(replica_id, "").startswith("UP") for replica_id in running)

        wait_until(all_up, timeout, "balancer sees every replica up", self.haproxy)
