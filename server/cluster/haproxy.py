"""Render the HAProxy configuration of a cluster from `deploy/haproxy.cfg.template`."""

from __future__ import annotations

import resource
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from string import Template

from ..fd_limits import DESCRIPTOR_CAP

TEMPLATE = Path(__file__).resolve().parents[2] / "deploy" / "haproxy.cfg.template"
BALANCE_CHOICES = ("leastconn", "roundrobin")
# Descriptors HAProxy keeps for itself (its listener, the health checks, the stats socket, logs).
RESERVED_DESCRIPTORS = 200


def open_file_limit() -> int:
    """The most descriptors a child of this process may open: the hard RLIMIT_NOFILE (a child may
    raise its soft limit up to it, as HAProxy does for itself from its `maxconn`, but not the hard
    limit without CAP_SYS_RESOURCE), at most `fd_limits.DESCRIPTOR_CAP` (HAProxy sizes its tables by
    it). The launcher raises its own limits first (`fd_limits.raise_open_file_limit`)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return DESCRIPTOR_CAP if hard == resource.RLIM_INFINITY else min(int(hard), DESCRIPTOR_CAP)


def machine_maxconn(descriptors: int | None = None) -> int:
    """HAProxy's `maxconn` under an open-file limit (by default this machine's, `open_file_limit`):
    each proxied connection holds two descriptors (the client's, the replica's), and a few are its
    own. At least 1."""
    limit = open_file_limit() if descriptors is None else descriptors
    return max(1, (limit - RESERVED_DESCRIPTORS) // 2)


@dataclass(frozen=True, slots=True)
class Backend:
    """One server replica as HAProxy sees it."""

    name: str  # the replica id
    host: str
    port: int
    unix: Path | None = None  # its Unix socket, when the balancer runs on the same host

    @property
    def address(self) -> str:
        """Where HAProxy reaches it: the Unix socket if there is one (cheaper than loopback TCP)."""
        return f"unix@{self.unix}" if self.unix is not None else f"{self.host}:{self.port}"


def render_config(bind: str, backends: Sequence[Backend], balance: str = "leastconn",
                  maxconn: int | None = None,
                  stats_socket: Path | None = None, template: Path = TEMPLATE) -> str:
    """The configuration text: listen on `bind` (`host:port`), check and balance over `backends`;
    at most `maxconn` connections, or (None) as many as HAProxy's own open-file limit allows, its
    descriptors capped at `fd_limits.DESCRIPTOR_CAP` (for a balancer whose limit is not known here:
    docker-compose.yml's container)."""
    if balance not in BALANCE_CHOICES:
        raise ValueError(f"balance must be one of {BALANCE_CHOICES}")
    if not backends:
        raise ValueError("a cluster needs at least one replica")
    servers = "\n".join(f"    server {backend.name} {backend.address} check" for backend in backends)
    # The `rooms` backend (affinity by room id) tracks the checks of `replicas`.
    room_servers = "\n".join(
        f"    server {backend.name} {backend.address} track replicas/{backend.name}"
        for backend in backends)
    socket = f"    stats socket {stats_socket} mode 600 level user" if stats_socket is not None else ""
    limits = f"    maxconn {maxconn}" if maxconn is not None else f"    fd-hard-limit {DESCRIPTOR_CAP}"
    return Template(template.read_text()).substitute(
        bind=bind, servers=servers, room_servers=room_servers, balance=balance, limits=limits,
        stats_socket=socket)


def compose_config(replicas: int = 3) -> str:
    """The rendering for docker-compose.yml: services `server1`..`serverN` on port 8765; HAProxy
    derives its `maxconn` from the container's open-file limit (docker-compose.yml's `ulimits`)."""
    return render_config("*:8765", [Backend(f"r{number}", f"server{number}", 8765)
                                    for number in range(1, replicas + 1)])
