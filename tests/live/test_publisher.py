"""The publisher (server/live/publisher.py), the one sender of what this process tells the others: a
room's changes leave in the order they were committed, a change of presence is shared before the
publications queued after it, a publication Redis did not take is tried again until it does, and what
the last publication of each room reached (other processes only) is kept."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from shared_peers import eventually

from server.coord import Coordination, MemoryHub, memory_coordination
from server.coord.fanout import Change
from server.live import publisher as publisher_module
from server.live.publisher import LOBBY_CHANNEL, Publisher


@pytest.fixture
async def here_and_there() -> AsyncIterator[tuple[Coordination, Coordination]]:
    hub = MemoryHub()
    pair = (memory_coordination("A", hub), memory_coordination("B", hub))
    yield pair
    for coord in pair:
        await coord.close()


async def running(coord: Coordination) -> tuple[Publisher, asyncio.Task[None]]:
    publisher = Publisher(coord)
    return publisher, asyncio.create_task(publisher.run())


async def stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def test_changes_leave_in_order_and_reach_the_other_process(
    here_and_there: tuple[Coordination, Coordination],
) -> None:
    here, there = here_and_there
    heard: list[Change] = []
    await there.fanout.subscribe("room1", heard.append)
    publisher, task = await running(here)
    try:
        for version in range(1, 6):
            publisher.send("room1", {"version": version})
        publisher.send("room1", {})  # nothing to publish
        await publisher.flush(5)
        await eventually(lambda: len(heard) == 5, timeout=5, what="five changes heard")
        assert [change.change["version"] for change in heard] == [1, 2, 3, 4, 5]
        assert {change.origin for change in heard} == {"A"}
        assert publisher.others_reached("room1") == 1
    finally:
        await stop(task)


async def test_what_a_publication_reached_counts_other_processes_only(
    here_and_there: tuple[Coordination, Coordination],
) -> None:
    here, _ = here_and_there
    await here.fanout.subscribe("room1", lambda change: None)  # this process follows the room too
    publisher, task = await running(here)
    try:
        assert publisher.others_reached("room1") is None, "unknown before any publication"
        publisher.send("room1", {"version": 1})
        publisher.send(LOBBY_CHANNEL, {"lobby": True})
        await publisher.flush(5)
        assert publisher.others_reached("room1") == 0, "its own subscriber is not another process"
        assert publisher.others_reached(LOBBY_CHANNEL) is None, "the lobby channel is no room"
        publisher.forget("room1")
        assert publisher.others_reached("room1") is None
    finally:
        await stop(task)


async def test_a_seat_change_is_shared_before_the_publications_after_it(
    here_and_there: tuple[Coordination, Coordination],
) -> None:
    here, there = here_and_there
    seen_at_publication: list[dict[int, frozenset[str]]] = []
    publisher, task = await running(here)
    real_publish_many = here.fanout.publish_many

    async def publish_many(changes: list[tuple[str, dict[str, Any]]]) -> list[int]:
        seen_at_publication.append(await there.presence.seats("room1"))
        return await real_publish_many(changes)

    here.fanout.publish_many = publish_many  # type: ignore[method-assign]
    try:
        publisher.send("room1", {"version": 1}, ("arrived", 2))
        await publisher.flush(5)
        assert seen_at_publication == [{2: frozenset({"A"})}]
        publisher.send("room1", {"version": 2}, ("departed", 2))
        await publisher.flush(5)
        assert seen_at_publication[-1] == {}
    finally:
        await stop(task)


async def test_a_publication_not_taken_is_tried_again(
    here_and_there: tuple[Coordination, Coordination], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(publisher_module, "RETRY_FIRST_SECONDS", 0.01)
    here, there = here_and_there
    heard: list[Change] = []
    await there.fanout.subscribe("room1", heard.append)
    publisher, task = await running(here)
    real_publish_many = here.fanout.publish_many
    refusals = [3]

    async def publish_many(changes: list[tuple[str, dict[str, Any]]]) -> list[int]:
        if refusals[0] > 0:
            refusals[0] -= 1
            raise ConnectionError("Connection closed by server")
        return await real_publish_many(changes)

    here.fanout.publish_many = publish_many  # type: ignore[method-assign]
    try:
        publisher.send("room1", {"version": 1})
        publisher.send("room1", {"version": 2})
        await publisher.flush(5)
        await eventually(lambda: len(heard) == 2, timeout=5, what="both changes heard")
        assert [change.change["version"] for change in heard] == [1, 2]
        assert refusals == [0]
    finally:
        await stop(task)
