"""Fixtures of the coordination tests: coordination primitives of several "processes" on one backend
(the test Redis under a unique prefix, the test session's Redis Cluster under a unique prefix, or
in-memory twins sharing a hub)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from coord_helpers import MakeCoord

from server.coord import Coordination, MemoryHub, memory_coordination, redis_coordination


@pytest.fixture(params=["memory", "redis", "cluster"])
async def make_coord(request: pytest.FixtureRequest, redis_url: str, redis_cleanup: str,
                     redis_cluster_url: str, redis_cluster_cleanup: str) -> AsyncIterator[MakeCoord]:
    """Factory of one process's primitives: every process made by one factory shares one backend.
    Not started (tests start the periodic passes they need); all are closed at the end."""
    hub = MemoryHub()
    made: list[Coordination] = []

    def make(process_id: str, **options: Any) -> Coordination:
        if request.param == "memory":
            coord = memory_coordination(process_id, hub, **options)
        elif request.param == "redis":
            coord = redis_coordination(redis_url, process_id, prefix=redis_cleanup, **options)
        else:
            coord = redis_coordination(redis_cluster_url, process_id, prefix=redis_cluster_cleanup, **options)
        made.append(coord)
        return coord

    yield make
    for coord in made:
        await coord.close()
