"""A bot move that finds the store ahead of the room's live copy (a move the store took but this process
never applied: a bot step cancelled while its write was on the way, when the room's lease was lost; or a
write that timed out after it reached Redis) must show the players the stored state, or the table waits
for a human who was never told it is their turn. Found by the leak proof on a starved machine
(bench/leak_proof.py --store redis): "expected version 317, found 318", then no frame for 120 s; and a
room at version 459 whose players were last shown 458.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from server.client import WhistClient
from server.server import WhistServer
from server.settings import Limits
from server.store.redis import RedisStore
from server.table import facts, play, to_stored


@pytest.fixture
async def server(redis_url: str, redis_cleanup: str) -> AsyncIterator[WhistServer]:
    # Bots wait an hour before each move: the test makes every bot move itself.
    whist = WhistServer(RedisStore(redis_url, prefix=redis_cleanup), bot_delay=3600.0,
                        limits=Limits(1000.0, 1000.0))
    await whist.start("127.0.0.1", 0)
    yield whist
    await whist.stop()


@pytest.mark.parametrize("stale", [False, True], ids=["found-by-its-write", "known-stale"])
async def test_a_bot_move_behind_the_store_shows_everyone_the_stored_state(server: WhistServer,
                                                                          stale: bool) -> None:
    assert server.server is not None
    host, port = next(iter(server.server.sockets)).getsockname()[:2]
    async with await WhistClient.connect(f"ws://{host}:{port}/ws", name="North") as human:
        room_id = (await human.create_room("solo-whist", seat=0, session={"deals": 5}))["room_id"]
        await human.start()  # three bots join the human at seat 0
        room = server.tables.rooms[room_id]
        for _ in range(400):
            table = room.table
            assert table.session is not None and not room.over
            deal = table.session.deal
            if deal.finished:
                if 0 not in table.ready:
                    await human.ready()
                else:
                    await room.apply(play.next_deal, human=False)
            elif 0 in deal.to_act():
                await human.wait_for(lambda c: c.my_turn())
                view = human.view
                assert view is not None
                await human.act(view["legal"][0])
            else:
                seat = min(deal.to_act())
                action = deal.view(seat)["legal"][0]
                outcome = play.act(table, seat, action)
                after = outcome.table
                assert after.session is not None
                if after.session.deal.finished or 0 not in after.session.deal.to_act():
                    await room.apply(lambda current, s=seat, a=action: play.act(current, s, a), human=False)
                    continue
                # This bot's move reaches the store but never the live room (as when the step is
                # cancelled while its write is on the way): the human is next, and not told so.
                await server.store.save(room_id, to_stored(after), table.version, outcome.entries,
                                        facts.lobby_entry(after))
                # Known stale (a write failed, and so did the reload after it): the bot's step reloads
                # first, finds its move made, and does nothing. Else its write finds the store ahead.
                room.stale = stale
                bots = server.tables.bots
                bots.delay = 0.0
                bots.closed(room)  # the bot loop waiting out its hour
                bots.kick(room)  # the bot tries its move again, on the live copy
                await human.wait_for(lambda c: c.my_turn(), 20)
                assert human.room is not None and human.room["version"] == table.version + 1
                return
            await human.wait_for(lambda c, version=room.version: c.room is not None
                                 and c.room["version"] >= version)
    pytest.fail("no bot move came right before the human's turn")
