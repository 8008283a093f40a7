"""A room's owner lease that lapses in this process's eyes while its renewal is on the way, and is then
renewed: the bots that were told "not yours" meanwhile must play on (found by the leak proof on a starved
machine, bench/leak_proof.py --store redis: the rooms' lease renewals came back late).

`Leases.holds` counts a lease as held until `ttl` after the last renewal was sent. When a renewal's
answer comes back later than that, but Redis still had the lease (its expiry runs from when Redis ran
the renewal), the lease was never lost: without a word about it, the bot loop that asked during the gap
stopped and nothing restarted it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable

import pytest

from server.client import WhistClient
from server.coord import leases as leases_module
from server.coord import new_process_id, redis_coordination
from server.coord.leases import Leases, MemoryLeases
from server.server import WhistServer
from server.settings import Limits
from server.store.redis import RedisStore
from server.table import facts

TTL = 2.0
SLOW = 0.5 * TTL  # every renewal takes this long to reach Redis and come back


def slow_renewals(leases: Leases, delay: float = SLOW) -> None:
    """Every renewal reaches the store `delay` late (a busy Redis, a starved event loop): the lease stays
    valid in the store (renewed before it expires there) but lapses here for a while each round."""
    renew = leases._renew

    async def late(rooms: Iterable[str]) -> dict[str, bool]:
        await asyncio.sleep(delay)
        return await renew(rooms)

    leases._renew = late  # type: ignore[method-assign]


async def until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait (polling) until `condition()` holds."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.005)


class Clock:
    """The leases' clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now


async def test_a_lease_renewed_after_it_lapsed_here_is_reported_as_taken_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    monkeypatch.setattr(leases_module, "time", clock)
    taken: list[str] = []
    leases = MemoryLeases("A", 3.0, on_acquired=taken.append)
    assert await leases.acquire("room1")  # confirmed at 100; the store keeps it until 103
    renew = leases._renew

    async def answered_late(rooms: Iterable[str]) -> dict[str, bool]:
        answer = await renew(rooms)  # the store runs the renewal at 102: it keeps the lease until 105
        clock.now = 103.5  # ...but its answer is read here after the lease lapsed (100 + 3)
        assert not leases.holds("room1"), "meanwhile this process said: not mine"
        return answer

    leases._renew = answered_late  # type: ignore[method-assign]
    clock.now = 102.0
    await leases.tick()
    assert leases.holds("room1") and await leases.owner("room1") == "A", "the lease never left"
    assert taken == ["room1"], "the owner is told it holds the room again"
    clock.now = 103.9
    leases._renew = renew  # type: ignore[method-assign]
    await leases.tick()  # an ordinary renewal, answered in time: nothing to tell
    assert taken == ["room1"]


@pytest.fixture
async def server(redis_url: str, redis_cleanup: str) -> AsyncIterator[WhistServer]:
    coordination = redis_coordination(redis_url, new_process_id("lapse"), prefix=redis_cleanup,
                                      lease_ttl=TTL)
    whist = WhistServer(RedisStore(redis_url, prefix=redis_cleanup), bot_delay=0.0,
                        limits=Limits(1000.0, 1000.0), coordination=coordination)
    await whist.start("127.0.0.1", 0)
    yield whist
    await whist.stop()


def turn_or_end(client: WhistClient) -> bool:
    return client.my_turn() or (client.view is not None and client.view["phase"] == "end")


async def test_bots_play_on_after_their_rooms_lease_lapsed_here_and_was_renewed(server: WhistServer) -> None:
    assert server.server is not None
    host, port = next(iter(server.server.sockets)).getsockname()[:2]
    leases = server.tables.shared.coord.leases
    slow_renewals(leases)
    async with await WhistClient.connect(f"ws://{host}:{port}/ws", name="North") as human:
        room_id = (await human.create_room("solo-whist", seat=0, session={"deals": 30}))["room_id"]
        await human.start()  # three bots join the human
        room = server.tables.rooms[room_id]

        def bot_moved(version: int) -> bool:
            return room.version > version or facts.bot_work(room.table, time.monotonic()) is None

        for _ in range(300):
            await human.wait_for(turn_or_end, 20)
            view, info = human.view, human.room
            assert view is not None and info is not None and not room.over
            if view["phase"] == "end":
                await human.ready()
                await human.wait_for(lambda c, seen=info["deal_number"]: c.room is not None
                                     and c.room["deal_number"] > seen, 20)
                continue
            # The human acts while this process counts the lease as lapsed...
            await until(lambda: not leases.holds(room_id))
            await human.act(view["legal"][0])
            version = room.version
            await human.wait_for(lambda c, seen=view: c.view is not seen, 20)
            if facts.bot_work(room.table, time.monotonic()) is None:
                continue  # no bot's turn now: try again at the human's next turn
            # ...and the bot whose turn it is moves once the renewal is back (the lease never left).
            await until(lambda moved=version: bot_moved(moved))
            assert await leases.owner(room_id) == server.tables.shared.process_id
            return
    pytest.fail("the human never acted inside a gap with a bot to move next")
