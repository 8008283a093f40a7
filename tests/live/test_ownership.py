"""Room ownership (server/live/ownership.py): the owner runs the bots and timers, the room's listeners
hear `owned` and `disowned`, a lost lease stops them here, and a lease a pass took for a room no
longer held is given back."""

from __future__ import annotations

from shared_peers import Heard, Peer, create, eventually

from server.live import Tables


async def test_the_creator_owns_the_room_and_the_others_bots_and_timers_do_not_run_it(
    two: tuple[Tables, Tables],
) -> None:
    a, b = two
    heard_a, heard_b = Heard(), Heard()
    a.listen(heard_a)
    b.listen(heard_b)
    room_id = await create(a, Peer("Ann"))
    await b.join(Peer("Bob"), room_id, 1)
    room_a, room_b = a.rooms[room_id], b.rooms[room_id]
    assert a.shared.ownership.owns(room_a) and not b.shared.ownership.owns(room_b)
    assert a.bots.may_run(room_a) and a.timers.may_run(room_a)
    assert not b.bots.may_run(room_b) and not b.timers.may_run(room_b)
    assert heard_a.of("owned") == [("owned", room_id, None)]
    assert heard_b.of("owned") == [] and heard_b.of("loaded") == [("loaded", room_id, None)]


async def test_a_lost_lease_is_heard_as_disowned_and_stops_the_bots_here(two: tuple[Tables, Tables]) -> None:
    a, _ = two
    heard = Heard()
    a.listen(heard)
    host = Peer("Ann")
    room_id = await create(a, host, seat=None, deals=50)
    await a.start(host)
    room = a.rooms[room_id]
    await eventually(lambda: a.bots.busy(room), what="the bots play")
    leases = a.shared.coord.leases
    await leases.release(room_id)  # as if it had expired: the lease pass reports it lost
    await a.shared.ownership.lost(room_id)
    assert heard.of("disowned") == [("disowned", room_id, None)]
    assert not a.shared.ownership.owns(room) and not a.bots.busy(room)


async def test_a_lease_taken_by_a_pass_for_a_room_not_held_here_is_given_back(
    two: tuple[Tables, Tables],
) -> None:
    a, _ = two
    leases = a.shared.coord.leases
    assert await leases.acquire("gone")
    await a.shared.ownership.acquired("gone")
    assert await leases.owner("gone") is None and not leases.holds("gone")


async def test_an_owner_without_connections_hands_the_room_to_the_process_with_the_players(
    two: tuple[Tables, Tables],
) -> None:
    a, b = two
    heard = Heard()
    a.listen(heard)
    host = Peer("Ann")
    room_id = await create(a, host, seat=None)
    await b.join(Peer("Bob"), room_id, 1)
    await eventually(lambda: a.shared.presence.elsewhere(room_id), what="A hears of B's player")
    await a.leave(host)  # A's last connection: A hands the room over, B claims it
    await eventually(lambda: b.shared.ownership.owns(b.rooms[room_id]), what="B owns the room")
    assert ("disowned", room_id, None) in heard.hooks and not a.shared.ownership.owns(a.rooms[room_id])
