"""The table requests (server/live/tables.py) with connection stand-ins: where each connection is
(membership), entering a room moves it out of the one it was in, and create_room / join / resume /
watch / leave / disconnect through the `Tables` API, on a real `MemoryStore`; `NewRoom` (server/live/
new_room.py) is the request create_room takes."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from shared_peers import Peer, eventually

from server.live import NewRoom, SessionSpan, Tables
from server.store import MemoryStore
from server.table import errors, hash_token


@pytest.fixture
async def tables() -> AsyncIterator[Tables]:
    tables = Tables(MemoryStore(), bot_delay=0.0)
    yield tables
    await tables.close()


def you(peer: Peer) -> dict[str, Any]:
    state = peer.last_state()
    assert state is not None, f"{peer.name} was sent no state"
    return state["you"]  # type: ignore[no-any-return]


def seats(peer: Peer) -> list[str | None]:
    state = peer.last_state()
    assert state is not None
    return [seat.get("name") for seat in state["room"]["seats"]]


async def create(tables: Tables, host: Peer, seat: int | str | None = 0) -> dict[str, Any]:
    return await tables.create_room(host, NewRoom(ruleset="solo-whist", seat=seat,  # type: ignore[arg-type]
                                                  bot="random", session=SessionSpan(1)))


async def test_create_room_stores_the_room_and_seats_its_host(tables: Tables) -> None:
    ann = Peer("Ann")
    answer = await create(tables, ann)
    room_id = answer["room_id"]
    assert answer["seat"] == 0 and answer["host"] is True and answer["token"]
    here = tables.current(ann)
    assert here.room.room_id == room_id and here.participant == hash_token(answer["token"])
    assert await tables.store.load(room_id) is not None, "stored before anyone is told"
    assert you(ann) == {"seat": 0, "host": True, "spectator": False}
    assert tables.rooms[room_id].members == {ann: here.participant}


@pytest.mark.parametrize(("asked", "seated"), [("any", 0), (None, None), (2, 2)])
async def test_the_host_sits_where_asked(tables: Tables, asked: int | str | None, seated: int | None) -> None:
    ann = Peer("Ann")
    assert (await create(tables, ann, asked))["seat"] == seated
    assert you(ann)["seat"] == seated and you(ann)["host"] is True


async def test_join_takes_a_seat_and_everyone_in_the_room_is_told(tables: Tables) -> None:
    ann, bob = Peer("Ann"), Peer("Bob")
    room_id = (await create(tables, ann))["room_id"]
    answer = await tables.join(bob, room_id, 1)
    assert answer["seat"] == 1 and answer["token"]
    assert you(bob) == {"seat": 1, "host": False, "spectator": False}
    assert seats(ann)[:2] == ["Ann", "Bob"], "the host's connection sees the new player"


async def test_a_refused_join_leaves_the_connection_where_it_was(tables: Tables) -> None:
    ann, bob = Peer("Ann"), Peer("Bob")
    room_id = (await create(tables, ann))["room_id"]
    first = (await create(tables, bob))["room_id"]
    with pytest.raises(errors.SeatTaken):
        await tables.join(bob, room_id, 0)
    assert tables.current(bob).room.room_id == first
    assert bob not in tables.rooms[room_id].members


async def test_watch_enters_as_a_spectator_and_moves_the_connection_out_of_its_room(tables: Tables) -> None:
    ann, bob = Peer("Ann"), Peer("Bob")
    room_a = (await create(tables, ann))["room_id"]
    room_b = (await create(tables, bob))["room_id"]
    answer = await tables.watch(bob, room_a)
    assert answer["room_id"] == room_a
    assert you(bob) == {"seat": None, "host": False, "spectator": True}
    assert tables.room_of(bob) is tables.rooms[room_a]
    assert bob not in tables.rooms[room_b].members, "out of the room it was in"
    assert bob in tables.rooms[room_a].members


async def test_leave_gives_up_the_seat_and_the_room(tables: Tables) -> None:
    ann, bob = Peer("Ann"), Peer("Bob")
    room_id = (await create(tables, ann))["room_id"]
    await tables.join(bob, room_id, 1)
    assert await tables.leave(bob) == {"room_id": room_id}
    assert tables.room_of(bob) is None
    with pytest.raises(errors.NotInRoom):
        tables.current(bob)
    assert seats(ann)[1] is None, "the seat is free again before the start"


async def test_resume_on_a_new_connection_gives_it_the_seat_and_puts_the_old_one_on_the_rail(
    tables: Tables,
) -> None:
    ann, phone = Peer("Ann"), Peer("Ann's phone")
    answer = await create(tables, ann)
    resumed = await tables.resume(phone, answer["room_id"], answer["token"])
    assert resumed["seat"] == 0 and resumed["host"] is True
    assert you(phone)["seat"] == 0
    assert you(ann) == {"seat": None, "host": False, "spectator": True}
    assert tables.room_of(ann) is tables.room_of(phone), "the old connection stays, as a spectator"
    with pytest.raises(errors.BadToken):
        await tables.resume(Peer("Eve"), answer["room_id"], "not-a-token")


async def test_a_player_who_drops_is_away_and_a_finished_room_nobody_uses_is_dropped(tables: Tables) -> None:
    ann, bob = Peer("Ann"), Peer("Bob")
    answer = await create(tables, ann)
    room_id = answer["room_id"]
    await tables.join(bob, room_id, 1)
    await tables.start(ann)
    await tables.disconnect(bob)
    room = tables.rooms[room_id]
    assert 1 in room.table.presence.away_since, "Bob's seat starts its grace period"
    assert bob not in room.members
    await tables.end(ann)
    # (A bot loop still winding down keeps the room: the last departure must come after it.)
    await eventually(lambda: not tables.bots.busy(room), timeout=10, what="the bot loop done")
    await tables.disconnect(ann)
    assert room_id not in tables.rooms, "the finished room is dropped from memory"
    assert await tables.store.load(room_id) is not None, "the store keeps it"


async def test_requests_need_a_room(tables: Tables) -> None:
    with pytest.raises(errors.NotInRoom):
        await tables.leave(Peer("Nobody"))
    with pytest.raises(errors.NoSuchRoom):
        await tables.watch(Peer("Nobody"), "nosuchroom")


async def test_the_seats_a_connection_takes_are_credited_to_its_player_key(tables: Tables) -> None:
    ann, bob, cat, dan, phone = Peer("Ann"), Peer("Bob"), Peer("Cat"), Peer("Dan"), Peer("Ann's phone")
    tables.identify(ann, "hash-of-ann")
    tables.identify(bob, "hash-of-bob")
    answer = await create(tables, ann)
    room_id = answer["room_id"]
    await tables.join(bob, room_id, 1)
    await tables.join(cat, room_id, 2)  # no key: anonymous
    assert await tables.store.seat_credits(room_id) == {0: "hash-of-ann", 1: "hash-of-bob"}
    await tables.leave(bob)
    await tables.join(dan, room_id, 1)  # a keyless new holder of Bob's old seat: not Bob's any more
    assert await tables.store.seat_credits(room_id) == {0: "hash-of-ann"}
    await tables.resume(phone, room_id, answer["token"])  # Ann's own seat, from a device with no key
    assert await tables.store.seat_credits(room_id) == {0: "hash-of-ann"}, "coming back keeps the credit"
    tables.identify(phone, "hash-of-ann-2")
    await tables.resume(phone, room_id, answer["token"])
    assert await tables.store.seat_credits(room_id) == {0: "hash-of-ann-2"}
    await tables.disconnect(ann)
    assert ann not in tables.players, "nothing kept for a closed connection"
