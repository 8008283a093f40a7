"""The grace timers (server/live/timers.py): a seat left with no connection is taken over by the bot
(a `bot_took_over` event, so everyone is told) once the room's grace period ends, only where this
process owns the room; closing or handing the room over cancels the timers; a grace expiry the room
could not apply is tried again."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import pytest
from live_units import HOST_TOKEN, started, stored_room, two_player_table
from shared_peers import Peer, eventually

from server.live import GraceTimers, LiveRoom, RoomListener
from server.live import timers as timers_module
from server.live.change import CommittedChange
from server.store import MemoryStore, StoredRoom
from server.table import facts, hash_token

GRACE = 0.1


class Owns:
    """An ownership port answering as set."""

    def __init__(self, owns: bool = True) -> None:
        self.answer = owns

    def owns(self, room: LiveRoom) -> bool:
        return self.answer


class Events(RoomListener):
    """Keeps the events of the committed changes."""

    def __init__(self) -> None:
        self.events: list[dict[str, object]] = []

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        self.events.extend(change.events)


def took_over(heard: Events, seat: int) -> bool:
    return {"type": "bot_took_over", "seat": seat} in heard.events


async def a_room(timers: GraceTimers, store: MemoryStore | None = None) -> tuple[LiveRoom, Events]:
    heard = Events()
    room = await stored_room(started(two_player_table(grace=GRACE)), [timers, heard], store)
    return room, heard


async def test_a_departed_seat_goes_to_the_bot_after_the_grace_period() -> None:
    timers = GraceTimers(Owns())
    room, heard = await a_room(timers)
    ann = Peer("Ann")
    await room.admit(ann, hash_token(HOST_TOKEN))
    await room.release(ann)
    assert not took_over(heard, 0), "not before the grace period ends"
    await eventually(lambda: took_over(heard, 0), timeout=5, what="bot took over")
    assert facts.bot_playing(room.table, 0, time.monotonic())


async def test_a_player_back_within_the_grace_period_keeps_the_seat() -> None:
    timers = GraceTimers(Owns())
    room, heard = await a_room(timers)
    ann = Peer("Ann")
    await room.admit(ann, hash_token(HOST_TOKEN))
    await room.release(ann)
    await room.admit(Peer("Ann again"), hash_token(HOST_TOKEN))
    await asyncio.sleep(GRACE * 3)
    assert not took_over(heard, 0)


async def test_a_loaded_room_arms_every_away_seat() -> None:
    timers = GraceTimers(Owns())
    room, heard = await a_room(timers)
    room.table = replace(room.table, presence=replace(room.table.presence,
                                                      away_since={0: 0.0, 1: 0.0}))  # away long ago
    timers.opened(room)
    await eventually(lambda: took_over(heard, 0) and took_over(heard, 1), timeout=5, what="both taken over")


async def test_no_timer_runs_where_the_room_is_not_owned() -> None:
    owner = Owns(False)
    timers = GraceTimers(owner)
    room, heard = await a_room(timers)
    ann = Peer("Ann")
    await room.admit(ann, hash_token(HOST_TOKEN))
    await room.release(ann)
    timers.away(room, 1)
    await asyncio.sleep(GRACE * 3)
    assert heard.events == []
    owner.answer = True
    await timers.owned(room)  # the owner from now on: what is left of seat 0's grace runs here
    await eventually(lambda: took_over(heard, 0), timeout=5, what="bot took over once owned")


@pytest.mark.parametrize("how", ["closed", "disowned"])
async def test_closing_or_losing_the_room_cancels_its_timers(how: str) -> None:
    timers = GraceTimers(Owns())
    room, heard = await a_room(timers)
    ann = Peer("Ann")
    await room.admit(ann, hash_token(HOST_TOKEN))
    await room.release(ann)
    if how == "closed":
        timers.closed(room)
    else:
        await timers.disowned(room)
    await asyncio.sleep(GRACE * 3)
    assert heard.events == []


class SilentStore(MemoryStore):
    """A memory store whose loads fail while `silent`."""

    silent = False

    async def load(self, room_id: str) -> StoredRoom | None:
        if self.silent:
            raise ConnectionError("the store does not answer")
        return await super().load(room_id)


async def test_an_expiry_the_room_could_not_apply_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(timers_module, "GRACE_RETRY_SECONDS", 0.05)
    store = SilentStore()
    timers = GraceTimers(Owns())
    room, heard = await a_room(timers, store)
    ann = Peer("Ann")
    await room.admit(ann, hash_token(HOST_TOKEN))
    store.silent = True
    room.mark_stale()  # the next change reloads first: refused while the store is silent
    await room.release(ann)
    await asyncio.sleep(GRACE * 3)
    assert not took_over(heard, 0)
    store.silent = False
    await eventually(lambda: took_over(heard, 0), timeout=5, what="taken over once the store answers")
