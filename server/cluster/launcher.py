"""`Cluster`: a private Redis (unless a store is given), N server replicas and HAProxy in front. With
`redis="sentinel"`: a Redis primary, `redis_replicas` replicas and three sentinels instead, the
server replicas on `redis+sentinel://...` (docs/scaling.md, "Redis Sentinel"). With
`redis="cluster"`: a Redis Cluster of three primaries with one replica each (rediscluster.py), the
server replicas on `redis-cluster://...` (docs/scaling.md, "Redis Cluster"). With `balancers=N`:
N HAProxy processes on the one balancer address, the same backends in each (docs/scaling.md, "More
than one balancer process"); what the launcher asks of the balancer (`wait_balanced`, after a start
and `restart_replica`) it asks of every one.

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
import functools
import logging
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Any

from ..fd_limits import raise_open_file_limit
from .haproxy import Backend, machine_maxconn, render_config
from .processes import (
    HAPROXY,
    PrivateRedis,
    PrivateSentinel,
    Replica,
    free_port,
    http_json,
    spawn,
    stop,
    wait_until,
)
from .rediscluster import RedisShards

log = logging.getLogger("whist.cluster")

REDIS_TOPOLOGIES = ("single", "sentinel", "cluster")
SENTINEL_SERVICE = "whist"
SENTINELS = 3
# On the Sentinel topology, every Redis refuses writes as primary unless a replica confirmed the
# replication stream within the lag (seconds): a primary cut off from its replicas stops taking moves.
SENTINEL_REDIS_SETTINGS = ["min-replicas-to-write 1", "min-replicas-max-lag 5"]
#: Tries at starting the balancer on a port of its own choosing that another process took meanwhile.
BIND_ATTEMPTS = 5


def agreed_status(views: list[dict[str, str]]) -> dict[str, str]:
    """replica id -> its status in every one of `views` (one per balancer process) where they agree,
    else `MIXED <first> / <second> ...`."""
    agreed: dict[str, str] = {}
    for name in views[0]:
        seen = [view.get(name, "?") for view in views]
        agreed[name] = seen[0] if len(set(seen)) == 1 else "MIXED " + " / ".join(seen)
    return agreed


class Cluster:
    """The topology of docker-compose.yml as local processes. See the module docstring."""

    def __init__(self, replicas: int = 2, port: int = 0, store: str | None = None, host: str = "127.0.0.1",
                 balance: str = "leastconn", server_args: list[str] | None = None,
                 directory: Path | None = None, redis: str = "single", redis_replicas: int = 2,
                 down_after_ms: int = 1500, balancers: int = 1) -> None:
        if replicas < 1:
            raise ValueError("a cluster needs at least one replica")
        if balancers < 1:
            raise ValueError("a cluster needs at least one balancer process")
        if redis not in REDIS_TOPOLOGIES:
            raise ValueError(f"redis must be one of {REDIS_TOPOLOGIES}")
        if redis == "sentinel" and (store or redis_replicas < 1):
            raise ValueError("the sentinel topology starts its own Redis primary and at least one replica")
        if redis == "cluster" and store:
            raise ValueError("the cluster topology starts its own Redis Cluster")
        self.host = host
        self.port = port or free_port(host)
        self._port_chosen = not port  # chosen here: another may be chosen if someone takes it first
        self.balance = balance
        self._own_directory = directory is None
        self.directory = directory or Path(tempfile.mkdtemp(prefix="whist-cluster-"))
        self.directory.mkdir(parents=True, exist_ok=True)
        self.topology = redis
        self.sentinels: list[PrivateSentinel] = []
        self.redis_replicas: list[PrivateRedis] = []
        self.shards: RedisShards | None = None
        self.redis: PrivateRedis | None = None
        if redis == "cluster":
            self.shards = RedisShards(self.directory / "redis-cluster", node_timeout_ms=down_after_ms)
            self.store = self.shards.url
        elif redis == "sentinel":
            # The primary first (the one `kill_redis` and `stop_redis` mean), then its replicas.
            primary = self.redis = PrivateRedis(self.directory / "redis", settings=SENTINEL_REDIS_SETTINGS)
            self.redis_replicas = [PrivateRedis(self.directory / f"redis-replica{number}",
                                                replica_of=primary.port, settings=SENTINEL_REDIS_SETTINGS)
                                   for number in range(1, redis_replicas + 1)]
            self.sentinels = [PrivateSentinel(self.directory / f"sentinel{number}", primary.port,
                                              SENTINEL_SERVICE, down_after_ms=down_after_ms)
                              for number in range(1, SENTINELS + 1)]
            addresses = ",".join(f"127.0.0.1:{sentinel.port}" for sentinel in self.sentinels)
            self.store = f"redis+sentinel://{addresses}/{SENTINEL_SERVICE}"
        else:
            self.redis = None if store else PrivateRedis(self.directory / "redis")
            self.store = store or (self.redis.url if self.redis else "")
        self.replicas = [Replica(f"r{number}", self.store, self.directory, "127.0.0.1",
                                 extra_args=list(server_args or []))
                         for number in range(1, replicas + 1)]
        # `balancers` HAProxy processes on the one address (SO_REUSEPORT: the kernel spreads the new
        # connections over them), each with its own configuration file and stats socket; the first
        # keeps the names of a one-balancer cluster (`haproxy`, `config_path`, `stats_socket`).
        self.balancer_processes: list[subprocess.Popen[bytes] | None] = [None] * balancers
        suffixes = [""] + [str(number) for number in range(2, balancers + 1)]
        self.config_paths = [self.directory / f"haproxy{suffix}.cfg" for suffix in suffixes]
        self.stats_sockets = [self.directory / f"haproxy{suffix}.sock" for suffix in suffixes]
        self.config_path = self.config_paths[0]
        self.stats_socket = self.stats_sockets[0]

    # ---------------------------------------------------------------- addresses

    @property
    def haproxy(self) -> subprocess.Popen[bytes] | None:
        """The first balancer process (the only one unless `balancers` > 1)."""
        return self.balancer_processes[0]

    def balancer_pids(self) -> list[int]:
        """The process id of every running balancer process, in order."""
        return [process.pid for process in self.balancer_processes
                if process is not None and process.poll() is None]

    @property
    def url(self) -> str:
        """The balancer's HTTP address."""
        return f"http://{self.host}:{self.port}/"

    @property
    def ws_url(self) -> str:
        """The balancer's WebSocket address."""
        return f"ws://{self.host}:{self.port}/ws"

    @property
    def redis_nodes(self) -> list[PrivateRedis]:
        """Every Redis this cluster started: the (first) primary, then its replicas (a Redis Cluster:
        its nodes, primaries first)."""
        if self.shards is not None:
            return list(self.shards.nodes)
        return ([self.redis] if self.redis is not None else []) + self.redis_replicas

    def describe(self) -> dict[str, Any]:
        """Addresses, process ids and the log directory (the command line prints it, and writes it
        with `--describe PATH`): `processes` names every process started, with its role (balancer,
        server, redis, sentinel), pid, host and port; a Redis says whether it started as primary or
        replica, and its command line (the same one starts it again); a server its command line and
        working directory (`bench/chaos.py` restarts a killed one with them)."""
        pids: dict[str, int | None] = {"redis": self.redis.process.pid if self.redis and self.redis.process
                                       else None}
        pids.update({replica.replica_id: replica.pid for replica in self.replicas})
        processes: list[dict[str, Any]] = []
        for number, balancer in enumerate(self.balancer_processes, start=1):
            name = "haproxy" if number == 1 else f"haproxy{number}"
            pids[name] = balancer.pid if balancer is not None else None
            processes.append({"role": "balancer", "pid": pids[name], "host": self.host, "port": self.port,
                              "stats_socket": str(self.stats_sockets[number - 1])})
        processes += [{"role": "server", "pid": replica.pid, "host": replica.host, "port": replica.port,
                       "replica": replica.replica_id, "argv": replica.argv, "cwd": str(replica.cwd),
                       "log": str(replica.log_path)}
                      for replica in self.replicas]
        processes += [{"role": "redis", "pid": node.pid, "host": "127.0.0.1", "port": node.port,
                       "started_as": node.started_as, "argv": node.argv, "log": str(node.log_path),
                       **self._shard_of(node)}
                      for node in self.redis_nodes]
        processes += [{"role": "sentinel", "pid": sentinel.pid, "host": "127.0.0.1", "port": sentinel.port,
                       "log": str(sentinel.log_path)} for sentinel in self.sentinels]
        if self.sentinels:
            pids.update({f"redis-replica{number}": node.pid
                         for number, node in enumerate(self.redis_replicas, start=1)})
            pids.update({f"sentinel{number}": sentinel.pid
                         for number, sentinel in enumerate(self.sentinels, start=1)})
        return {"url": self.url, "store": self.store, "logs": str(self.directory), "redis": self.topology,
                "sentinel_service": SENTINEL_SERVICE if self.sentinels else None,
                "replicas": {replica.replica_id: replica.url for replica in self.replicas},
                "processes": processes,
                "pids": {name: pid for name, pid in pids.items() if pid is not None}}

    def _shard_of(self, node: PrivateRedis) -> dict[str, Any]:
        """A Redis Cluster node's place when the cluster was made: `started_as` (primary or replica),
        `shard` (0-based), `node_id`, `slots`. Nothing for the other topologies."""
        if self.shards is None or node.port not in self.shards.layout:
            return {}
        place = self.shards.layout[node.port]
        return {"started_as": place["role"], "shard": place["shard"], "node_id": place["node_id"],
                "slots": place["slots"]}

    def sentinel_primary(self) -> tuple[str, int]:
        """Where the sentinels say the primary is now (the first that answers)."""
        for sentinel in self.sentinels:
            try:
                found = sentinel.primary()
            except Exception:  # a sentinel stopped or busy: ask the next
                continue
            if found is not None:
                return found
        raise RuntimeError("no sentinel names a primary")

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
        """Start Redis (and its replicas and sentinels), the server replicas and the balancer; return
        once all of them answer."""
        raise_open_file_limit()  # inherited by every child: the replicas' and the balancer's descriptors
        if self.redis is not None:
            self.redis.start()
        if self.shards is not None:
            self.shards.start(timeout)
        self._start_sentinel_topology(timeout)
        for replica in self.replicas:
            replica.start()
        for replica in self.replicas:
            replica.wait_ready(timeout)
        # The balancer reaches the replicas on their Unix sockets (same host); tests and operators can
        # still reach each one on its own port.
        backends = [Backend(r.replica_id, r.host, r.port, r.unix_path) for r in self.replicas]
        for index in range(len(self.balancer_processes)):
            self._start_balancer(index, backends, timeout)
        self.wait_balanced(timeout)

    def _start_balancer(self, index: int, backends: list[Backend], timeout: float) -> None:
        """Balancer process `index` (`_spawn_balancer`); if the port chosen here was taken by another
        process before HAProxy bound it, another port is chosen and the balancer started again."""
        log_path = self.config_paths[index].with_suffix(".log")
        for attempt in range(1, BIND_ATTEMPTS + 1):
            logged = log_path.stat().st_size if log_path.exists() else 0
            try:
                self._spawn_balancer(index, backends, timeout)
                return
            except RuntimeError:
                with log_path.open("rb") as log:  # what this attempt logged
                    log.seek(logged)
                    taken = b"Address already in use" in log.read()
                if index or not self._port_chosen or not taken or attempt == BIND_ATTEMPTS:
                    raise
                # Between choosing the free port and the balancer's bind another process took it
                # (parallel test workers): choose again.
                self.port = free_port(self.host)

    def _spawn_balancer(self, index: int, backends: list[Backend], timeout: float) -> None:
        """Balancer process `index`: its configuration (the same backends and address for every one,
        its own stats socket), then the process; return once its stats socket answers and the port
        answers HTTP. Each may hold as many connections as its own open-file limit allows (a limit per
        process: N processes hold N times as many); it raises its own soft limit."""
        config, log_path = self.config_paths[index], self.config_paths[index].with_suffix(".log")
        config.write_text(render_config(f"{self.host}:{self.port}", backends, self.balance,
                                        maxconn=machine_maxconn(), stats_socket=self.stats_sockets[index]))
        process = self.balancer_processes[index] = spawn([HAPROXY, "-db", "-f", str(config)], log_path)
        what = "haproxy" if index == 0 else f"haproxy{index + 1}"
        wait_until(lambda: self.balancer_status(index) is not None, timeout, f"{what} stats socket",
                   process, log_path)
        wait_until(lambda: http_json(self.url + "health")[0] in (200, 503), timeout, what, process, log_path)

    def _start_sentinel_topology(self, timeout: float) -> None:
        """The Redis replicas, then the sentinels; wait until every replica is in step with the primary
        and every sentinel knows all replicas and the other sentinels (a failover needs them)."""
        if not self.sentinels:
            return
        for node in self.redis_replicas:
            node.start(timeout)
        for node in self.redis_replicas:
            wait_until(lambda node=node: node.info().get("master_link_status") == "up", timeout,
                       f"redis replica on {node.port} in step", node.process, node.log_path)
        # The primary counts a replica only after its first acknowledgement (up to a second after the
        # replica's link is up); until then, under min-replicas-to-write, it refuses every write.
        primary = self.redis
        assert primary is not None
        wait_until(lambda: int(primary.info().get("min_slaves_good_slaves", 0)) >= 1, timeout,
                   "the redis primary counts a replica as good", primary.process, primary.log_path)
        for sentinel in self.sentinels:
            sentinel.start(timeout)
        replicas, others = len(self.redis_replicas), len(self.sentinels) - 1
        for sentinel in self.sentinels:
            wait_until(functools.partial(sentinel.sees, replicas, others), timeout,
                       f"sentinel on {sentinel.port} sees the topology", sentinel.process, sentinel.log_path)

    def stop(self) -> None:
        """Stop the balancer, the replicas (SIGTERM, clean shutdown), the sentinels and the private
        Redis (all of its nodes)."""
        for balancer in self.balancer_processes:
            stop(balancer)
        for replica in self.replicas:
            replica.terminate()
        for sentinel in self.sentinels:  # first: no failover while the nodes stop
            sentinel.stop()
        for node in self.redis_nodes:
            node.stop()
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

    def balancer_command(self, command: str, index: int = 0) -> str:
        """Send one command (`show stat`, `show info`, ...) to balancer process `index`'s stats
        socket; its answer."""
        with socket.socket(socket.AF_UNIX) as connection:
            connection.settimeout(3)
            connection.connect(str(self.stats_sockets[index]))
            connection.sendall(command.encode() + b"\n")
            data = b""
            while chunk := connection.recv(65536):
                data += chunk
        return data.decode()

    def balancer_stats(self, index: int = 0) -> list[dict[str, str]]:
        """Balancer process `index`'s `show stat`: one row per frontend, backend and server."""
        return list(csv.DictReader(self.balancer_command("show stat", index).lstrip("# ").splitlines()))

    def balancer_status(self, index: int | None = None) -> dict[str, str]:
        """replica id -> the balancer's status of it (`UP`, `DOWN`, ...), from HAProxy's stats socket:
        of process `index`, or (None) the status every balancer process agrees on, `MIXED a/b` where
        they differ (so a wait for `UP` or `DOWN` waits for all of them)."""
        if index is None:
            return agreed_status([self.balancer_status(number) for number in range(len(self.stats_sockets))])
        return {row["svname"]: row["status"] for row in self.balancer_stats(index)
                if row.get("pxname") == "replicas" and row.get("svname") not in ("BACKEND", "FRONTEND")}

    def wait_balanced(self, timeout: float = 60.0) -> None:
        """Wait until every balancer process counts every running replica as up."""
        running = {replica.replica_id for replica in self.replicas if replica.alive()}

        def all_up() -> bool:
            status = self.balancer_status()
            return all(status.get(replica_id, "").startswith("UP") for replica_id in running)

        wait_until(all_up, timeout, "every balancer process sees every replica up", self.haproxy)
