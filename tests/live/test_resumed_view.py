"""The view after a resume is the seat's, from the first `state` on: a connection that was in the room
as a spectator (it watched, or lost the seat to a newer connection, maybe through another process, e.g.
before a failover) and resumes the seat on the same connection is never sent the resume's own change
as a spectator."""

from __future__ import annotations

from shared_peers import Peer, create, eventually

from server.live import Tables


def states_after(peer: Peer, mark: int) -> list[dict[str, object]]:
    """The `state` pushes the peer got after its first `mark` messages."""
    return [message for message in peer.pushed[mark:] if message["type"] == "state"]


def seat_view(state: dict[str, object], seat: int) -> bool:
    """Whether a `state` push is the seat's own view, its hand in it."""
    you, view = state["you"], state["view"]
    assert isinstance(you, dict) and isinstance(view, dict)
    return you["seat"] == seat and not you["spectator"] and bool(view["hand"])


async def test_a_spectator_resuming_a_seat_on_the_same_connection_is_first_sent_the_seats_view(
    two: tuple[Tables, Tables],
) -> None:
    a, b = two
    host = Peer("Host")
    room_id = await create(a, host, seat=0)
    await a.start(host)
    assert host.last_state() is not None
    token = a.members[host].token
    assert token is not None
    # A second tab takes the seat through the other process: the first connection goes to the rail.
    second = Peer("second tab")
    assert (await b.resume(second, room_id, token))["seat"] == 0
    await eventually(lambda: (state := host.last_state()) is not None and state["you"]["spectator"],
                     what="the first connection is a spectator")
    # The first connection takes the seat back, on the same connection: its first state after the
    # request is the seat's (not the spectator's view of the resume's own change).
    mark = len(host.pushed)
    assert (await a.resume(host, room_id, token))["seat"] == 0
    states = states_after(host, mark)
    assert states and seat_view(states[0], 0), states[0] if states else "no state"
    await eventually(lambda: (state := second.last_state()) is not None and state["you"]["spectator"],
                     what="the second tab is a spectator")


async def test_a_watcher_resuming_a_seat_on_the_same_connection_is_first_sent_the_seats_view(
    two: tuple[Tables, Tables],
) -> None:
    a, _ = two
    host = Peer("Host")
    room_id = await create(a, host, seat=0)
    await a.start(host)
    token = a.members[host].token
    assert token is not None
    watcher = Peer("watcher")
    await a.watch(watcher, room_id)
    mark = len(watcher.pushed)
    assert (await a.resume(watcher, room_id, token))["seat"] == 0
    states = states_after(watcher, mark)
    assert states and seat_view(states[0], 0), states[0] if states else "no state"
