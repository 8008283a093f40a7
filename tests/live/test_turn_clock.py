"""The turn clock over real websockets: whose clock runs and until when, the bot plays for a player
out of time and everyone is told, two expiries in a row hand the seat to the bot until `resume`, and
the deadline survives a reload and another server taking the room over."""

from __future__ import annotations

import time
from typing import Any

import pytest
from server_helpers import Connect

from server.client import ServerError, WhistClient
from server.server import WhistServer
from server.settings import Limits
from server.store.redis import RedisStore

MARGIN = 20.0  # generous: a busy machine may be slow to schedule, never early


async def clocked_room(client: WhistClient, turn_seconds: float, **options: Any) -> str:
    options.setdefault("session", {"deals": 1})
    await client.create_room("whist", seat=0, bot="random", turn_seconds=turn_seconds, **options)
    await client.start()
    assert client.room_id is not None
    return client.room_id


def room_clock(client: WhistClient) -> Any:
    return client.state["room"]["clock"] if client.state else None


def expiries(client: WhistClient, seat: int) -> int:
    return sum(1 for event in client.events if event == {"type": "turn_expired", "seat": seat})


async def test_a_player_out_of_time_has_the_bot_act_for_them_and_everyone_is_told(connect: Connect) -> None:
    ann = await connect("Ann")
    room_id = await clocked_room(ann, 1.0)
    watcher = await connect("Watcher")
    await watcher.watch(room_id)
    await ann.wait_for(lambda c: c.my_turn(), timeout=MARGIN)
    clock = room_clock(ann)
    assert clock is not None and clock["seat"] == 0
    assert time.time() - 5 < clock["deadline"] <= time.time() + 1.0 + 0.5
    assert ann.state is not None and ann.state["room"]["turn_seconds"] == 1.0
    assert watcher.state is not None and watcher.state["room"]["clock"] == clock, "spectators see it too"
    assert ann.view is not None
    cards_before = len(ann.view["hand"])
    await watcher.wait_for(lambda c: expiries(c, 0) >= 1, timeout=1.0 + MARGIN)
    await ann.wait_for(lambda c: c.view is not None and len(c.view["hand"]) == cards_before - 1,
                       timeout=MARGIN)
    assert expiries(ann, 0) >= 1, "the player is told too"


async def test_two_expiries_in_a_row_give_the_seat_to_the_bot_until_the_player_resumes(
    connect: Connect,
) -> None:
    ann = await connect("Ann")
    room_id = await clocked_room(ann, 0.5)
    await ann.wait_for(lambda c: any(e == {"type": "bot_took_over", "seat": 0, "reason": "clock"}
                                     for e in c.events), timeout=30 + MARGIN)
    await ann.wait_for(lambda c: c.state is not None and c.state["room"]["seats"][0]["bot_playing"])
    assert room_clock(ann) is None or room_clock(ann)["seat"] != 0, "bots have no clock"
    assert ann.token is not None
    await ann.resume(room_id, ann.token)  # "I'm back"
    await ann.wait_for(lambda c: c.state is not None and not c.state["room"]["seats"][0]["bot_playing"])
    assert any(e == {"type": "player_returned", "seat": 0, "reason": "clock"} for e in ann.events)


async def test_a_player_who_stops_between_deals_does_not_hold_the_next_deal(connect: Connect) -> None:
    # Long enough that Ann, who plays every turn of the deal at once, never misses two turns in a row
    # on a busy machine (the bot would then keep her seat, and a bot's seat has no pause clock).
    turn_seconds = 8.0
    ann = await connect("Ann")
    # A target no side reaches in one deal (13 tricks score 7): at the default 5, a side taking 11 tricks
    # ends the session at the first deal, and there is no pause.
    await clocked_room(ann, turn_seconds, session={"deals": 2}, house_rules={"target": 8})
    watcher = await connect("Watcher")
    assert ann.room_id is not None
    await watcher.watch(ann.room_id)
    end = await ann.play_deal(lambda view: str(view["legal"][0]), timeout=120.0)
    assert end["phase"] == "end" and ann.room is not None and not ann.room["session_over"]
    missed = [event for event in ann.events if event.get("type") in ("turn_expired", "bot_took_over")]
    assert not missed, f"Ann's own turns ran out while she played (the machine stalled): {missed}"
    await ann.wait_for(lambda c: room_clock(c) is not None, timeout=MARGIN)
    pause = room_clock(ann)
    assert ann.room is not None
    first = ann.room["deal_number"]
    assert pause["seat"] == 0, "the pause's clock runs for the player who has not said ready"
    # Ann never says `ready`: when the pause runs out the next deal is dealt, and everyone is told.
    expired = {"type": "ready_expired", "seats": [0]}
    await watcher.wait_for(lambda c: expired in c.events, timeout=turn_seconds + MARGIN)
    await ann.wait_for(lambda c: c.room is not None and c.room["deal_number"] == first + 1, timeout=MARGIN)
    assert {"type": "ready_expired", "seats": [0]} in ann.events


async def test_the_default_clock_is_on_for_listed_rooms_and_off_for_private_ones(connect: Connect) -> None:
    listed, private = await connect("Ann"), await connect("Bob")
    await listed.create_room("whist", seat=0)
    await private.create_room("whist", seat=0, listed=False)
    await listed.wait_for(lambda c: c.state is not None)
    await private.wait_for(lambda c: c.state is not None)
    assert listed.state is not None and listed.state["room"]["turn_seconds"] == 60.0
    assert private.state is not None and private.state["room"]["turn_seconds"] == 0.0
    with pytest.raises(ServerError) as caught:
        await (await connect("Cy")).create_room("whist", turn_seconds=-1)
    assert caught.value.code == "invalid_message"


async def test_a_reload_and_another_server_keep_the_same_deadline(redis_url: str, redis_cleanup: str) -> None:
    def server() -> WhistServer:
        return WhistServer(RedisStore(redis_url, prefix=redis_cleanup), bot_delay=0.0,
                           limits=Limits(200.0, 400.0))

    first = server()
    host, port = await first.start("127.0.0.1", 0)
    ann = await WhistClient.connect(f"ws://{host}:{port}/ws", name="Ann")
    room_id = await clocked_room(ann, 300.0)
    await ann.wait_for(lambda c: c.my_turn(), timeout=MARGIN)
    deadline = room_clock(ann)["deadline"]
    await ann.request("get_state")
    await ann.wait_for(lambda c: c.state is not None)
    assert room_clock(ann)["deadline"] == deadline, "a reload does not restart it"
    await first.stop()  # the owner goes; another server loads the room from the store
    second = server()
    host, port = await second.start("127.0.0.1", 0)
    try:
        again = await WhistClient.connect(f"ws://{host}:{port}/ws", name="Ann")
        assert ann.token is not None
        await again.resume(room_id, ann.token)
        await again.wait_for(lambda c: c.state is not None and c.state["room"]["clock"] is not None)
        assert room_clock(again) == {"seat": 0, "deadline": deadline}
        await again.close()
    finally:
        await ann.close()
        await second.stop()
