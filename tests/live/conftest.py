"""Fixtures of the shared-room checks."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.coord import MemoryHub, memory_coordination
from server.live import Tables
from server.store import MemoryStore


@pytest.fixture
async def two() -> AsyncIterator[tuple[Tables, Tables]]:
    """Two processes' worth of `Tables` on one store, wired by coordination twins sharing a hub."""
    store, hub = MemoryStore(), MemoryHub()
    pair = (Tables(store, bot_delay=0.0, coordination=memory_coordination("A", hub)),
            Tables(store, bot_delay=0.0, coordination=memory_coordination("B", hub)))
    for tables in pair:
        await tables.join_cluster()
    yield pair
    for tables in pair:
        await tables.close()
