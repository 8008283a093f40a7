"""Scheduling under load: human requests go before bot moves, and the Redis store sends the writes of
many rooms in one pipeline without mixing up their answers."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from server.live import BOT_SLOTS, BotScheduler, NewRoom, SessionSpan, Tables
from server.store import MemoryStore
from server.store.base import VersionConflictError
from server.store.redis import RedisStore

JSON = dict[str, Any]


class FakePeer:
    """A connection stand-in that keeps what it is sent."""

    def __init__(self, name: str = "Ann") -> None:
        self.name = name
        self.wants_events = False
        self.closing = False
        self.pushed: list[JSON] = []

    def push(self, message: JSON) -> None:
        self.pushed.append(message)


class HoldingStore(MemoryStore):
    """A memory store that holds the writes of one room until released."""

    def __init__(self) -> None:
        super().__init__()
        self.held_room: str | None = None
        self.reached = asyncio.Event()
        self.release = asyncio.Event()

    async def save(self, room_id: str, state: JSON, expected_version: int, log: list[JSON],
                   lobby_entry: JSON | None) -> int:
        if room_id == self.held_room:
            self.reached.set()
            await self.release.wait()
        return await super().save(room_id, state, expected_version, log, lobby_entry)

    def logged(self, room_id: str) -> int:
        return len(self._logs.get(room_id, []))


async def test_a_bot_move_waits_while_a_human_request_is_served() -> None:
    bots = BotScheduler(slots=4, yield_seconds=10.0)
    order: list[str] = []

    async def bot_move() -> None:
        async with bots.bot_move():
            order.append("bot")

    with bots.human_request():
        waiting = asyncio.create_task(bot_move())
        await asyncio.sleep(0.05)
        assert order == [], "no bot move starts while a human request is in progress"
        order.append("human")
    await asyncio.wait_for(waiting, 30.0)
    assert order == ["human", "bot"]
    assert bots.humans_busy == 0


async def test_bots_wait_for_humans_only_so_long() -> None:
    bots = BotScheduler(slots=1, yield_seconds=0.05)
    with bots.human_request():
        started = time.monotonic()
        # The human request is still in progress: the bot move gets its turn after `yield_seconds` all
        # the same (were it blocked for good, the test would hang until pytest's timeout).
        async with bots.bot_move():
            waited = time.monotonic() - started
        assert bots.humans_busy == 1
    assert waited >= 0.04, "the bot waited for the human first"


async def test_other_tables_bots_pause_while_a_human_action_is_stored() -> None:
    store = HoldingStore()
    manager = Tables(store, bot_delay=0.0, scheduler=BotScheduler(yield_seconds=10.0))
    try:
        bot_host = FakePeer("host")
        bot_room = (await manager.create_room(bot_host, NewRoom(
            ruleset="solo-whist", seat=None, session=SessionSpan(50),
            bot="random", listed=False)))["room_id"]
        human = FakePeer("Ann")
        human_room = (await manager.create_room(human, NewRoom(
            ruleset="solo-whist", seat=0, session=SessionSpan(1),
            bot="random", listed=False)))["room_id"]
        await manager.start(human)
        room = manager.rooms[human_room]
        deadline = time.monotonic() + 60
        while room.session is None or 0 not in room.session.deal.to_act():
            assert time.monotonic() < deadline, "the human's turn never came"
            await asyncio.sleep(0.005)
        await manager.start(bot_host)
        while store.logged(bot_room) <= 5:  # the bot-only table plays on by itself
            await asyncio.sleep(0.005)

        store.held_room = human_room
        action = room.session.deal.legal_actions(0)[0]
        acting = asyncio.create_task(manager.act(human, action, None))
        await asyncio.wait_for(store.reached.wait(), 60)
        before = store.logged(bot_room)
        await asyncio.sleep(0.2)
        during = store.logged(bot_room) - before
        assert during <= BOT_SLOTS, f"{during} bot moves were stored while a human's action waited"

        store.release.set()
        assert (await asyncio.wait_for(acting, 60))["action"] == action
        after = store.logged(bot_room)
        while store.logged(bot_room) <= after:  # the bots go on once the human's action is served
            await asyncio.sleep(0.005)
    finally:
        store.release.set()
        await manager.close()


async def test_redis_writes_of_one_moment_share_a_pipeline(redis_url: str, redis_cleanup: str) -> None:
    store = RedisStore(redis_url, prefix=redis_cleanup)
    try:
        rooms = [f"r{number}" for number in range(20)]
        versions = await asyncio.gather(*(store.save(room, {"n": 0}, 0, [{"t": "created"}], None)
                                          for room in rooms))
        assert versions == [1] * len(rooms)
        # A batch that mixes good writes and stale ones: each writer gets its own answer.
        results = await asyncio.gather(
            *(store.save(room, {"n": 1}, 1 if number % 2 == 0 else 7, [{"t": "act", "n": number}], None)
              for number, room in enumerate(rooms)),
            return_exceptions=True,
        )
        for number, (room, result) in enumerate(zip(rooms, results, strict=True)):
            if number % 2 == 0:
                assert result == 2
                assert await store.read_log(room) == [{"t": "created"}, {"t": "act", "n": number}]
            else:
                assert isinstance(result, VersionConflictError) and result.found == 1
                assert await store.read_log(room) == [{"t": "created"}]
    finally:
        await store.close()


async def test_redis_store_reloads_its_script_when_redis_lost_it(redis_url: str, redis_cleanup: str) -> None:
    store = RedisStore(redis_url, prefix=redis_cleanup)
    try:
        # As after a Redis restart: the script cache does not know the sha the store uses.
        store._save_sha = "0" * 40
        both = await asyncio.gather(store.save("a", {}, 0, [], None), store.save("b", {}, 0, [], None))
        assert both == [1, 1]
        assert await store.save("a", {"n": 1}, 1, [{"t": "x"}], None) == 2
        stored = await store.load("a")
        assert stored is not None and stored.state == {"n": 1}
    finally:
        await store.close()
