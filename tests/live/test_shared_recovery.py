"""Recovery of shared rooms after the store (Redis) was away, with two processes' worth of `Tables` on
one store, wired by in-memory coordination twins sharing a hub.

Right after Redis comes back, the first command on each pooled connection fails ("Connection closed
by server"). When that command was a process's publish of a change, or the reload that follows its
subscriber's reconnection, the change never reached the other process's connections: no further change
came to bring it, because the player who was to act next was one of them and was never told. These
checks fail one such command on purpose and wait for the players to be told (they are not asked to
ask). The grace timer of a player who left is retried the same way when the store did not answer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from shared_peers import Peer, eventually

from server.coord.fanout import MemoryFanout
from server.live import NewRoom, SessionSpan, Tables
from server.live.room import LiveRoom
from server.store import MemoryStore
from server.table import play


class Failing:
    """Wraps an async callable: its next `times` calls raise ConnectionError (as redis-py does on a
    pooled connection Redis closed when it stopped), then it answers again."""

    def __init__(self, call: Callable[..., Any], times: int = 1) -> None:
        self.call = call
        self.times = times
        self.failed = 0

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.failed < self.times:
            self.failed += 1
            raise ConnectionError("Connection closed by server.")
        return await self.call(*args, **kwargs)


class FlakyStore:
    """A store whose next `times` loads fail (the rest is the wrapped store)."""

    def __init__(self, store: Any, times: int) -> None:
        self.store = store
        self.load = Failing(store.load, times)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def four_humans(a: Tables, b: Tables) -> tuple[str, Peer, list[Peer]]:
    """A started room of four humans: the host at seat 0 through A (which owns the room), seats 1-3
    through B."""
    host = Peer("Ann")
    request = NewRoom(ruleset="solo-whist", seat=0,
                      bot="random", grace_seconds=60.0,
                      session=SessionSpan(1))
    room_id = str((await a.create_room(host, request))["room_id"])
    guests = [Peer(f"G{seat}") for seat in (1, 2, 3)]
    for seat, guest in zip((1, 2, 3), guests, strict=True):
        await b.join(guest, room_id, seat)
    await a.start(host)
    version = a.rooms[room_id].version
    await eventually(lambda: b.rooms[room_id].version == version
                     and all(peer.version() == version for peer in (host, *guests)),
                     what="the start reached every connection")
    return room_id, host, guests


async def commit_a_move(tables: Tables, room_id: str) -> int:
    """The player to act makes a legal move, committed through this process's copy of the room (as
    that player's request would be); returns the room's new version."""
    room = tables.rooms[room_id]
    table = room.table
    assert table.session is not None
    seat = min(table.session.deal.to_act())
    action = table.session.deal.legal_actions(seat)[0]
    await room.apply(lambda current: play.act(current, seat, action))
    return room.version


async def b_misses_a_move(a: Tables, b: Tables, room_id: str) -> tuple[LiveRoom, MemoryFanout, int]:
    """B's subscriber loses Redis while A commits a move (B misses it), then is subscribed again (the
    `on_resync` that RedisFanout then calls is the test's to make). Returns B's room, B's fan-out and
    the version of the missed move."""
    room_b = b.rooms[room_id]
    fanout_b = b.shared.coord.fanout
    assert isinstance(fanout_b, MemoryFanout)
    fanout_b.hub.subscribers[room_id].discard(fanout_b)
    version = await commit_a_move(a, room_id)
    assert room_b.version < version
    fanout_b.hub.subscribers[room_id].add(fanout_b)
    return room_b, fanout_b, version


async def test_a_change_whose_publish_failed_once_still_reaches_the_other_process(
    two: tuple[Tables, Tables],
) -> None:
    a, b = two
    room_id, _, guests = await four_humans(a, b)
    publish = Failing(a.shared.coord.fanout.publish)
    a.shared.coord.fanout.publish = publish  # type: ignore[method-assign]
    version = await commit_a_move(a, room_id)
    await eventually(lambda: publish.failed == 1, what="the publish failed")
    await eventually(lambda: b.rooms[room_id].version == version
                     and all(guest.version() == version for guest in guests),
                     what="the move reached the connections of the other process")


async def test_after_its_subscriber_reconnects_a_process_catches_up_though_its_first_reload_fails(
    two: tuple[Tables, Tables],
) -> None:
    a, b = two
    room_id, _, guests = await four_humans(a, b)
    room_b, fanout_b, version = await b_misses_a_move(a, b, room_id)
    # B's first reload fails.
    room_b.store = FlakyStore(room_b.store, 1)  # type: ignore[assignment]
    await resync(fanout_b)
    await eventually(lambda: room_b.version == version
                     and all(guest.version() == version for guest in guests),
                     what="the missed change reached B's connections")


async def test_after_its_subscriber_reconnects_a_process_tells_its_connections_though_presence_is_not_read(
    two: tuple[Tables, Tables],
) -> None:
    a, b = two
    room_id, _, guests = await four_humans(a, b)
    room_b, fanout_b, version = await b_misses_a_move(a, b, room_id)
    presence = b.shared.coord.presence
    presence.seats = Failing(presence.seats)  # type: ignore[method-assign]
    await resync(fanout_b)
    await eventually(lambda: room_b.version == version
                     and all(guest.version() == version for guest in guests),
                     what="the reloaded state reached B's connections")


async def resync(fanout: MemoryFanout) -> None:
    """What the Redis subscriber does once it is connected again."""
    assert fanout.on_resync is not None
    result = fanout.on_resync(fanout.rooms)
    if asyncio.iscoroutine(result):
        await result


async def test_a_grace_timer_whose_room_could_not_be_reloaded_tries_again() -> None:
    tables = Tables(MemoryStore(), bot_delay=0.0)
    try:
        host, watcher = Peer("Ann"), Peer("Watcher")
        request = NewRoom(ruleset="solo-whist", seat=0,
                          bot="random", grace_seconds=0.2,
                          session=SessionSpan(1))
        room_id = str((await tables.create_room(host, request))["room_id"])
        await tables.watch(watcher, room_id)
        await tables.start(host)
        room = tables.rooms[room_id]

        def host_to_act() -> bool:
            session = room.table.session
            return session is not None and session.deal.to_act() == {0} and not tables.bots.busy(room)

        await eventually(host_to_act, what="the bots played up to the host's turn")
        version = room.version
        # The store does not answer when the grace period ends (the copy must be reloaded first).
        room.stale = True
        room.store = FlakyStore(room.store, 1)  # type: ignore[assignment]
        await tables.disconnect(host)
        await eventually(lambda: room.version > version, what="the bot played the host's seat")
        assert any(event == {"type": "bot_took_over", "seat": 0} for message in watcher.pushed
                   for event in message.get("events", []))
    finally:
        await tables.close()


async def test_a_process_that_went_silent_while_the_others_subscriber_was_away_publishes_to_it_again(
    two: tuple[Tables, Tables],
) -> None:
    # Found by bench/chaos.py (the Redis primary killed): A published the move before B's subscriber
    # was back on the new primary, so PUBLISH reached only A's own subscriber and A went silent for
    # the room ("nobody else follows it"). B reloaded the room when its subscriber was back, but said
    # nothing: A's later changes never reached B's connections, and the table waited for a player there.
    a, b = two
    room_id, _, guests = await four_humans(a, b)
    a.shared.coord.fanout.alone = lambda room: False  # type: ignore[method-assign]  # Redis cannot know
    room_b, fanout_b = b.rooms[room_id], b.shared.coord.fanout
    assert isinstance(fanout_b, MemoryFanout)
    fanout_b.hub.subscribers[room_id].discard(fanout_b)  # B's subscriber lost Redis
    version = await commit_a_move(a, room_id)
    await a.shared.publisher.flush(5.0)
    assert a.shared.publisher.others_reached(room_id) == 0, "the move reached nobody else"
    fanout_b.hub.subscribers[room_id].add(fanout_b)  # back, on every channel it follows
    await resync(fanout_b)
    await eventually(lambda: room_b.version == version, what="B caught up")
    version = await commit_a_move(a, room_id)
    await eventually(lambda: room_b.version == version
                     and all(guest.version() == version for guest in guests),
                     what="A's next move reached B's connections")
