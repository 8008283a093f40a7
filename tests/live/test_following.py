"""Following other processes' changes (server/live/following.py): a process that follows a room moves
its copy on by what another process committed, tells its own connections, stops when nothing here needs
the room (its copy then counts as stale), and catches a room up when its subscriber was away."""

from __future__ import annotations

from shared_peers import Peer, create, eventually

from server.live import Tables


async def test_a_change_committed_elsewhere_moves_the_copy_here_and_reaches_its_connections(
    two: tuple[Tables, Tables],
) -> None:
    a, b = two
    host = Peer("Ann")
    room_id = await create(a, host)
    guest = Peer("Bob")
    await b.join(guest, room_id, 1)
    assert b.shared.following.follows(room_id)
    await a.add_bot(host, 2, None)
    version = a.rooms[room_id].version
    await eventually(lambda: b.rooms[room_id].version == version and guest.version() == version,
                     what="B's copy and its connection moved on")
    assert not b.rooms[room_id].stale


async def test_a_room_no_connection_here_needs_is_unfollowed_and_counts_as_stale(
    two: tuple[Tables, Tables],
) -> None:
    a, b = two
    room_id = await create(a, Peer("Ann"))
    guest = Peer("Bob")
    await b.join(guest, room_id, 1)
    await b.disconnect(guest)
    room_b = b.rooms[room_id]
    assert not b.shared.following.follows(room_id) and room_b.stale
    assert room_id not in b.shared.presence.remote


async def test_after_the_subscriber_was_away_a_followed_room_is_caught_up(two: tuple[Tables, Tables]) -> None:
    a, b = two
    host = Peer("Ann")
    room_id = await create(a, host, seat=None)
    guest = Peer("Bob")
    await b.join(guest, room_id, 1)
    fanout_b = b.shared.coord.fanout
    room_a, room_b = a.rooms[room_id], b.rooms[room_id]
    await fanout_b.unsubscribe(room_id, b.shared.following._received)  # B hears nothing for a while
    await a.add_bot(host, 2, None)
    assert room_b.version < room_a.version
    b.shared.following.resync(frozenset({room_id}))  # what the subscriber does when it is back
    await eventually(lambda: room_b.version == room_a.version and guest.version() == room_a.version,
                     what="B caught up and told its connection")
