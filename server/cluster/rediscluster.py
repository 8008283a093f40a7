"""A private Redis Cluster for the cluster launcher (`python -m server.cluster --redis cluster`): three
primaries with one replica each (Debian's redis-server, `cluster-enabled yes`), made one cluster by
`redis-cli --cluster create ... --cluster-replicas 1`, each node on loopback with its own port and
directory (append-only file and `nodes.conf`, so a node started again keeps its data and its place).

Short timings (a primary silent for `node_timeout_ms` is failed over to its replica), and
`cluster-require-full-coverage no`: while one shard has no primary, the others keep serving.
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
from pathlib import Path
from typing import Any

from .processes import PrivateRedis, wait_until

REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"
SLOTS = 16384
# A node also listens on its port + 10000 (the cluster bus): its port must leave room for that.
BUS_OFFSET = 10000
HIGHEST_PORT = 65535 - BUS_OFFSET


def cluster_port(taken: set[int] | None = None) -> int:
    """A port nobody listens on now, nor on the port 10000 higher (the node's cluster bus)."""
    taken = taken or set()
    while True:
        port = random.randint(20000, HIGHEST_PORT)
        if port in taken or port + BUS_OFFSET in taken:
            continue
        try:
            for candidate in (port, port + BUS_OFFSET):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port


def cluster_settings(node_timeout_ms: int) -> list[str]:
    """The configuration lines of every node of the private cluster."""
    return ["cluster-enabled yes", "cluster-config-file nodes.conf",
            f"cluster-node-timeout {node_timeout_ms}", "cluster-require-full-coverage no",
            "cluster-replica-validity-factor 0", "cluster-allow-reads-when-down no"]


class RedisShards:
    """`shards` primaries with `replicas` replicas each, as one Redis Cluster (see the module
    docstring). `nodes` in the order they were created: the primaries first."""

    def __init__(self, directory: Path, shards: int = 3, replicas: int = 1,
                 node_timeout_ms: int = 1500) -> None:
        if shards < 3:
            raise ValueError("a Redis Cluster needs at least three primaries")
        self.directory = directory
        self.shards = shards
        self.replicas = replicas
        settings = cluster_settings(node_timeout_ms)
        taken: set[int] = set()
        self.nodes = []
        for number in range(1, shards * (1 + replicas) + 1):
            port = cluster_port(taken)
            taken.update((port, port + BUS_OFFSET))
            self.nodes.append(PrivateRedis(directory / f"node{number}", port=port, settings=settings))
        self.layout: dict[int, dict[str, Any]] = {}  # port -> what CLUSTER NODES said at the start

    @property
    def url(self) -> str:
        """The store URL (every node a startup node: any live one gives the slot map)."""
        return "redis-cluster://" + ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)

    def start(self, timeout: float = 60.0) -> None:
        """Start the nodes, make them one cluster, wait until every node says it is whole."""
        for node in self.nodes:
            node.start(timeout)
        if not self._formed():
            log_path = self.directory / "create.log"
            with log_path.open("ab") as output:
                subprocess.run([REDIS_CLI, "--cluster", "create",
                                *(f"127.0.0.1:{node.port}" for node in self.nodes),
                                "--cluster-replicas", str(self.replicas), "--cluster-yes"],
                               stdout=output, stderr=subprocess.STDOUT, timeout=timeout, check=True)
        for node in self.nodes:
            wait_until(lambda node=node: self._whole(node), timeout, f"cluster node on {node.port} whole",
                       node.process, node.log_path)
        self.layout = self.read_layout()

    def _formed(self) -> bool:
        """Whether the nodes already are a cluster (started again with their nodes.conf)."""
        try:
            return self._cluster_info(self.nodes[0]).get("cluster_state") == "ok"
        except Exception:
            return False

    def _whole(self, node: PrivateRedis) -> bool:
        info = self._cluster_info(node)
        if info.get("cluster_state") != "ok" or int(info.get("cluster_known_nodes", 0)) < len(self.nodes):
            return False
        replication = node.info()
        return replication.get("role") == "master" or replication.get("master_link_status") == "up"

    @staticmethod
    def _cluster_info(node: PrivateRedis) -> dict[str, str]:
        import redis

        with redis.Redis(port=node.port, socket_timeout=3, decode_responses=True) as client:
            found: dict[str, Any] = client.execute_command("CLUSTER INFO")
        return {key: str(value) for key, value in found.items()}

    def read_layout(self) -> dict[int, dict[str, Any]]:
        """port -> {node_id, role (primary/replica), shard (0-based, primaries ordered by their first
        slot), slots ([[first, last], ...]; a replica: its primary's)}, as a live node says now."""
        import redis

        for node in self.nodes:
            try:
                with redis.Redis(port=node.port, socket_timeout=3, decode_responses=True) as client:
                    return parse_cluster_nodes(client.execute_command("CLUSTER NODES"))
            except Exception:
                continue
        return {}


def parse_cluster_nodes(nodes: dict[str, dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """The layout of `CLUSTER NODES` as redis-py gives it (address -> node_id, flags, master_id,
    slots), see `RedisShards.read_layout`; failed nodes included (their role as the others last knew
    it)."""
    by_id: dict[str, dict[str, Any]] = {}
    for address, fields in nodes.items():
        flags = str(fields["flags"]).split(",")
        port = int(address.split("@")[0].rsplit(":", 1)[1])
        slots = [[int(first), int(last)] for first, last in fields.get("slots", [])]
        master = str(fields.get("master_id", "-"))
        by_id[fields["node_id"]] = {"node_id": fields["node_id"], "port": port, "primary": "master" in flags,
                                    "failed": "fail" in flags, "master_id": master if master != "-" else None,
                                    "slots": slots}
    primaries = sorted((entry for entry in by_id.values() if entry["primary"] and entry["slots"]),
                       key=lambda entry: entry["slots"][0][0])
    shard_of = {entry["node_id"]: number for number, entry in enumerate(primaries)}
    layout: dict[int, dict[str, Any]] = {}
    for entry in by_id.values():
        owner = entry["node_id"] if entry["primary"] else entry["master_id"]
        slots = entry["slots"] if entry["primary"] else by_id.get(owner or "", {}).get("slots", [])
        layout[entry["port"]] = {"node_id": entry["node_id"],
                                 "role": "primary" if entry["primary"] else "replica",
                                 "shard": shard_of.get(owner or ""), "slots": slots,
                                 "failed": entry["failed"]}
    return layout
