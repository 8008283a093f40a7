"""Two processes' worth of `Tables` on one store, wired by in-memory coordination twins sharing a hub
(what one Redis is to several processes): changes reach the connections of the other process, only
the owner runs bots and timers, and a player connected elsewhere keeps the seat from the bots."""

from __future__ import annotations

import asyncio
import time

from shared_peers import Peer, eventually

from server.live import NewRoom, SessionSpan, Tables
from server.table import facts


async def create(tables: Tables, host: Peer, grace: float = 30.0, seat: int | None = 0) -> str:
    request = NewRoom(ruleset="solo-whist", seat=seat,
                      session=SessionSpan(1), bot="random", grace_seconds=grace)
    return str((await tables.create_room(host, request))["room_id"])


async def test_a_change_made_through_one_process_reaches_the_connections_of_the_other(
    two: tuple[Tables, Tables],
) -> None:
    a, b = two
    host = Peer("Ann")
    room_id = await create(a, host)
    guests = [Peer(f"G{seat}") for seat in (1, 2, 3)]
    for seat, guest in zip((1, 2, 3), guests, strict=True):
        await b.join(guest, room_id, seat)
    await a.start(host)
    # The start, made by A, reaches B's connections, whose copy moves on with it.
    await eventually(lambda: all((guest.last_state() or {}).get("view") is not None for guest in guests),
                     what="the start pushed to the connections of the other process")
    assert b.rooms[room_id].version == a.rooms[room_id].version
    # Every seat shows as connected everywhere (through the shared presence).
    info = facts.room_info(a.rooms[room_id].table, time.monotonic())
    assert [seat["connected"] for seat in info["seats"]] == [True] * 4


async def test_only_the_owner_runs_bots_and_a_player_connected_elsewhere_keeps_the_seat(
    two: tuple[Tables, Tables],
) -> None:
    a, b = two
    host = Peer("Ann")
    room_id = await create(a, host, grace=0.2)
    guest = Peer("Bob")
    await b.join(guest, room_id, 1)
    await a.start(host)  # seats 2 and 3: bots, run by A (the owner)
    room_a, room_b = a.rooms[room_id], b.rooms[room_id]
    assert a.shared.owns(room_a) and not b.shared.owns(room_b)
    assert not b.bots.busy(room_b)
    # Well past the grace time, Bob (connected to B only) still holds seat 1: no bot took it.
    await asyncio.sleep(0.6)
    assert not facts.bot_playing(room_a.table, 1, time.monotonic())
    assert not any(event.get("type") == "bot_took_over" for message in host.pushed
                   for event in message.get("events", []))
    # When Bob's connection goes, the owner's grace timer gives the seat to a bot, and everyone hears.
    await b.disconnect(guest)
    await eventually(lambda: any(event == {"type": "bot_took_over", "seat": 1} for message in host.pushed
                                 for event in message.get("events", [])), what="bot took over seat 1")


async def test_an_owner_whose_last_connection_left_hands_the_room_to_the_process_with_the_players(
    two: tuple[Tables, Tables],
) -> None:
    # Room affinity: the host created the room through A, then everyone (the host again, with the
    # seat token) is on B. A then no longer has a stake in the room: B must own it, A stop following.
    a, b = two
    host = Peer("Ann")
    request = NewRoom(ruleset="solo-whist", seat=0,
                      session=SessionSpan(1), bot="random", grace_seconds=30.0)
    created = await a.create_room(host, request)
    room_id, token = str(created["room_id"]), str(created["token"])
    guests = [Peer(f"G{seat}") for seat in (1, 2, 3)]
    for seat, guest in zip((1, 2, 3), guests, strict=True):
        await b.join(guest, room_id, seat)
    assert a.shared.owns(a.rooms[room_id]) and not b.shared.owns(b.rooms[room_id])
    await a.start(host)
    await eventually(lambda: b.rooms[room_id].version == a.rooms[room_id].version, what="B current")
    # The host resumes through B first (no moment without a connection on the seat), then leaves A.
    host_again = Peer("Ann")
    await b.resume(host_again, room_id, token)
    remote = a.shared.presence.remote
    await eventually(lambda: bool(remote.get(room_id, {}).get("B", (frozenset(), 0))[0] & {0}),
                     what="A hears that B holds seat 0")
    await a.disconnect(host)
    await eventually(lambda: b.shared.owns(b.rooms[room_id]), what="B owns the room")
    assert not a.shared.owns(a.rooms[room_id])
    assert not a.shared.following.follows(room_id), "A follows the room no more"
    # Nobody went to a bot, and the game goes on through B alone.
    room = b.rooms[room_id]
    assert not any(facts.bot_playing(room.table, seat, time.monotonic()) for seat in range(4))
    assert room.table.session is not None
    deal = room.table.session.deal
    seat = min(deal.to_act())
    players = {0: host_again, 1: guests[0], 2: guests[1], 3: guests[2]}
    before = room.version
    await b.act(players[seat], deal.legal_actions(seat)[0], seat)
    assert room.version == before + 1
    assert a.rooms[room_id].version == before, "A, no longer following, did not apply it"
