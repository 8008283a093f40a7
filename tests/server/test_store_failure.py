"""A write the store refuses (Redis down) is not applied: the player is told, and the room goes on
from the stored state once the store answers again."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.client import ServerError, WhistClient
from server.server import WhistServer
from server.store import MemoryStore
from server.table import records_from_log


class FlakyStore(MemoryStore):
    """A memory store whose writes fail while `down` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    async def save(self, room_id: str, state: dict[str, Any], expected_version: int,
                   log: list[dict[str, Any]], lobby_entry: dict[str, Any] | None) -> int:
        if self.down:
            raise ConnectionError("store unreachable at redis://10.1.2.3:6379/0")
        return await super().save(room_id, state, expected_version, log, lobby_entry)


async def test_a_refused_write_changes_nothing_and_play_resumes() -> None:
    store = FlakyStore()
    server = WhistServer(store, bot_delay=0.0)
    host, port = await server.start("127.0.0.1", 0)
    client = await WhistClient.connect(f"ws://{host}:{port}/ws", name="Solo")
    try:
        await client.create_room("solo-whist", seat=0, session={"deals": 1}, bot="random")
        await client.start()
        await client.wait_for(lambda c: c.my_turn())
        view = client.view
        assert view is not None and client.room_id is not None
        action = view["legal"][0]
        store.down = True
        with pytest.raises(ServerError) as caught:
            await client.act(action)
        assert caught.value.code == "store_unavailable" and "nothing was applied" in caught.value.message
        assert "10.1.2.3" not in caught.value.message, "the store's address stays in the server log"
        store.down = False
        await client.request("get_state")
        assert client.view is not None and client.view["calls"] == view["calls"], "the action did not happen"
        assert (await client.act(action))["action"] == action
        await client.play_deal(lambda v: v["legal"][0])
        records = records_from_log(await store.read_log(client.room_id))
        assert len(records) == 1 and records[0]["actions"].count([0, action]) >= 1
    finally:
        await client.close()
        await server.stop()


async def test_a_bot_move_the_store_refused_is_retried_and_the_table_plays_on() -> None:
    store = FlakyStore()
    server = WhistServer(store, bot_delay=0.0)
    host, port = await server.start("127.0.0.1", 0)
    client = await WhistClient.connect(f"ws://{host}:{port}/ws", name="Host")
    try:
        # The host watches a table of four bots: every move is a bot's.
        await client.create_room("couleur", seat=None, session={"deals": 1000}, bot="random")
        await client.start()
        room_id = client.room_id
        assert room_id is not None
        await asyncio.sleep(0.1)
        store.down = True  # the next bot moves are refused
        await asyncio.sleep(0.2)
        store.down = False
        await asyncio.sleep(0.1)
        before = len(await store.read_log(room_id))
        await asyncio.sleep(1.5)  # longer than the retry delay
        assert len(await store.read_log(room_id)) > before, "the bots stopped after one refused write"
    finally:
        await client.close()
        await server.stop()
