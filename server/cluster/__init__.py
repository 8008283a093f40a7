"""Running several server replicas behind HAProxy on one Redis, without Docker: `Cluster` (the
programmatic API) and `python -m server.cluster` (the command line)."""

from __future__ import annotations

from .haproxy import Backend, compose_config, render_config
from .launcher import Cluster

__all__ = ["Backend", "Cluster", "compose_config", "render_config"]
