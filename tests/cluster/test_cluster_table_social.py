"""The turn clock, table chat and one seat per player over three replicas behind HAProxy (started with
the cluster launcher), checked from docs/protocol.md: the bot acts for a human out of time and every
connection on every replica is told; the deadline is the same after the owner replica is SIGKILLed,
and every resumed view then shows the seat's hand; chat lines reach every connection of the room on
every replica, spectators' lines no seat, and come back after a reconnection; a seat resumed on another
replica is taken from the first connection.

Processes are started from the main thread only (see server/cluster/processes.py). Every wait is a
condition with a generous timeout (the machine is shared): nothing here asserts how fast anything
happens."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from websockets.exceptions import WebSocketException

from bench.cluster_players import owner_replica
from server.client import ServerError, WhistClient
from server.cluster import Cluster

REPLICAS = 3
MARGIN = 30.0  # seconds added to every wait: never early, maybe slow on a shared machine
JSON = dict[str, Any]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Three replicas (bots act at once) behind HAProxy, on a private Redis."""
    server_args = ["--bot-delay", "0", "--log-level", "warning", "--max-connections-per-address", "0",
                   "--max-rooms-per-address", "0"]
    with Cluster(replicas=REPLICAS, server_args=server_args,
                 directory=tmp_path_factory.mktemp("cluster-social")) as running:
        yield running


@pytest.fixture
async def clients() -> AsyncIterator[list[WhistClient]]:
    """The connections a test opens (closed at its end)."""
    opened: list[WhistClient] = []
    yield opened
    for client in opened:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.close(), 5)


def ws_of(cluster: Cluster, index: int) -> str:
    """A replica's own WebSocket address (not through the balancer)."""
    return cluster.replicas[index].url.replace("http://", "ws://") + "ws"


async def connect(opened: list[WhistClient], url: str, name: str) -> WhistClient:
    client = await WhistClient.connect(url, name=name)
    opened.append(client)
    return client


async def resume_through(opened: list[WhistClient], url: str, room_id: str, token: str, name: str,
                         timeout: float = 60.0) -> tuple[WhistClient, JSON]:
    """A new connection to `url` that resumes the seat; tried again while the balancer still sends
    to a replica that was just killed."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            client = await connect(opened, url, name)
            return client, await client.resume(room_id, token)
        except (OSError, ConnectionError, TimeoutError, ServerError, WebSocketException):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.3)


async def seated_room(opened: list[WhistClient], urls: list[str], turn_seconds: float,
                      deals: int = 3) -> tuple[str, list[WhistClient]]:
    """A started solo-whist room whose first seats are humans connected through `urls` (seat 0 is the
    host, who created the room); bots hold the other seats."""
    host = await connect(opened, urls[0], "P0")
    room = await host.create_room("solo-whist", seat=0, session={"deals": deals}, bot="random",
                                  grace_seconds=120, turn_seconds=turn_seconds)
    room_id = str(room["room_id"])
    players = [host]
    for seat, url in enumerate(urls[1:], start=1):
        player = await connect(opened, url, f"P{seat}")
        await player.join(room_id, seat)
        players.append(player)
    await host.start()
    return room_id, players


def room_clock(client: WhistClient) -> JSON | None:
    return client.room["clock"] if client.room is not None else None


def saw_clock(client: WhistClient, clock: JSON) -> bool:
    """Whether some `state` the connection received showed this clock."""
    return any(message.get("type") == "state" and message["room"]["clock"] == clock
               for message in client.received)


def expiries(client: WhistClient, seat: int) -> int:
    return sum(1 for event in client.events if event == {"type": "turn_expired", "seat": seat})


def first_state(client: WhistClient, after: int = 0) -> JSON | None:
    """The first `state` the connection received after its first `after` messages."""
    return next((message for message in client.received[after:] if message.get("type") == "state"), None)


def shows_the_seat(state: JSON, seat: int) -> bool:
    """A `state` that is the seat's own view: its hand, and legal moves when it is to act."""
    view = state["view"]
    if state["you"]["seat"] != seat or state["you"]["spectator"] or view is None or view["seat"] != seat:
        return False
    if view["phase"] != "end" and not view["hand"]:
        return False
    return seat not in view["to_act"] or bool(view["legal"])


def texts(client: WhistClient) -> list[str]:
    return [str(line.get("text")) for line in client.chat if "text" in line]


async def test_a_human_out_of_time_has_the_bot_act_for_them_and_every_replica_is_told(
    cluster: Cluster, clients: list[WhistClient],
) -> None:
    room_id, players = await seated_room(clients, [ws_of(cluster, 0), ws_of(cluster, 1)], 3.0)
    watcher = await connect(clients, ws_of(cluster, 2), "Watcher")
    await watcher.watch(room_id)
    everyone = [*players, watcher]
    # The bots act at once: the room waits for a human, whose clock runs (nobody acts here).
    await watcher.wait_for(lambda c: (clock := room_clock(c)) is not None and clock["seat"] in (0, 1), MARGIN)
    clock = room_clock(watcher)
    assert clock is not None
    seat = int(clock["seat"])
    for client in everyone:  # every connection is shown the same deadline (maybe already past)
        await client.wait_for(lambda c: saw_clock(c, clock), MARGIN)
    room = players[seat].room
    version = int(room["version"]) if room is not None else 0
    # The bot plays that one action for the seat; every connection, on every replica, is told.
    for client in everyone:
        await client.wait_for(lambda c: expiries(c, seat) >= 1, 3.0 + MARGIN)
    await players[seat].wait_for(lambda c: c.room is not None and int(c.room["version"]) > version
                                 and room_clock(c) != clock, MARGIN)
    # Two expiries in a row: the bot keeps the seat until the player resumes (here on another replica).
    took_over = {"type": "bot_took_over", "seat": seat, "reason": "clock"}
    await watcher.wait_for(lambda c: took_over in c.events, 2 * 3.0 + 2 * MARGIN)
    await watcher.wait_for(lambda c: c.room is not None and c.room["seats"][seat]["bot_playing"], MARGIN)
    token = players[seat].token
    assert token is not None
    back, answer = await resume_through(clients, ws_of(cluster, 2), room_id, token, "back")
    assert answer["seat"] == seat
    state = first_state(back)
    assert state is not None and shows_the_seat(state, seat), state
    await watcher.wait_for(lambda c: c.room is not None and not c.room["seats"][seat]["bot_playing"], MARGIN)


async def test_after_a_sigkill_of_the_owner_the_clock_keeps_its_deadline_and_every_resumed_view_is_the_seats(
    cluster: Cluster, clients: list[WhistClient],
) -> None:
    # A clock long enough not to run out while the room moves to another replica.
    urls = [cluster.ws_url] * 3
    room_id, players = await seated_room(clients, urls, 30.0)
    await players[0].wait_for(lambda c: (clock := room_clock(c)) is not None and clock["seat"] in (0, 1, 2),
                              MARGIN)
    clock = room_clock(players[0])
    assert clock is not None
    owner = await owner_replica(cluster.store, room_id)
    assert owner is not None
    index = [replica.replica_id for replica in cluster.replicas].index(owner)
    await asyncio.to_thread(cluster.kill_replica, index)
    try:
        # The connections that were on the killed replica drop (the host's at least: the room was
        # created there); the others stay.
        closing = [asyncio.ensure_future(player.closed.wait()) for player in players]
        await asyncio.wait(closing, timeout=MARGIN, return_when=asyncio.FIRST_COMPLETED)
        for waiting in closing:
            waiting.cancel()
        await asyncio.sleep(1.0)
        dropped = [seat for seat, player in enumerate(players) if player.closed.is_set()]
        resumed: dict[int, WhistClient] = {}
        for seat in dropped:
            token = players[seat].token
            assert token is not None
            client, answer = await resume_through(clients, cluster.ws_url, room_id, token, f"R{seat}")
            assert answer["seat"] == seat
            resumed[seat] = client
        # Every seat is also resumed on a new connection through the balancer (another tab): its
        # first view is the seat's, and the deadline is the one set before the owner died.
        for seat, player in enumerate(players):
            if seat in resumed:
                continue
            token = player.token
            assert token is not None
            client, answer = await resume_through(clients, cluster.ws_url, room_id, token, f"T{seat}")
            assert answer["seat"] == seat
            resumed[seat] = client
        for seat, client in resumed.items():
            state = first_state(client)
            assert state is not None and shows_the_seat(state, seat), (seat, state)
            assert state["room"]["clock"] == clock, "the deadline survives the failover"
        # The first connections still open lost their seats; one takes its seat back on the same
        # connection: its first state after the request is the seat's.
        survivors = [seat for seat, player in enumerate(players) if not player.closed.is_set()]
        for seat in survivors:
            await players[seat].wait_for(lambda c: c.state is not None and c.state["you"]["spectator"],
                                         MARGIN)
        if survivors:
            seat = survivors[0]
            player = players[seat]
            mark = len(player.received)
            token = player.token
            assert token is not None
            assert (await player.resume(room_id, token))["seat"] == seat
            # Until the server takes the request this connection is a spectator (a move made meanwhile
            # is pushed to it as such); from then on it sees the seat: the state pushed before the
            # answer, and every one after it.
            since = player.received[mark:]
            answered = next(i for i, message in enumerate(since) if message.get("type") == "ok"
                            and message.get("result", {}).get("seat") == seat)
            before = [message for message in since[:answered] if message.get("type") == "state"]
            after = [message for message in since[answered:] if message.get("type") == "state"]
            assert before and shows_the_seat(before[-1], seat), (seat, before[-1:])
            assert all(shows_the_seat(state, seat) for state in after), (seat, after)
            assert before[-1]["room"]["clock"] == clock
        # The new owner runs the clock: the turn expires (the bot plays for the seat), told everywhere.
        watcher = resumed[int(clock["seat"])]
        await watcher.wait_for(lambda c: expiries(c, int(clock["seat"])) >= 1,
                               max(0.0, float(clock["deadline"]) - time.time()) + MARGIN)
    finally:
        cluster.restart_replica(index)  # from this (the main) thread


async def test_chat_lines_reach_the_room_on_every_replica_and_come_back_after_a_reconnection(
    cluster: Cluster, clients: list[WhistClient],
) -> None:
    room_id, players = await seated_room(clients, [ws_of(cluster, 0), ws_of(cluster, 1)], 0.0)
    rail = [await connect(clients, ws_of(cluster, 2), "Rail2"),
            await connect(clients, ws_of(cluster, 0), "Rail0")]
    for spectator in rail:
        await spectator.watch(room_id)
    everyone = [*players, *rail]
    await players[1].say(text="AS KH QD")  # cards named in a line are text, never a leak
    await players[0].say(phrase="good_luck")
    for client in everyone:
        await client.wait_for(lambda c: "AS KH QD" in texts(c) and any(
            line.get("phrase") == "good_luck" for line in c.chat), MARGIN)
        line = next(line for line in client.chat if line.get("text") == "AS KH QD")
        assert line["from"] == {"seat": 1, "name": "P1"}
    # A spectator's line reaches the spectators only: the seats' next line arrives after it, alone.
    await rail[0].say(text="coaching from the rail")
    await rail[1].wait_for(lambda c: "coaching from the rail" in texts(c), MARGIN)
    await players[0].say(text="after the rail")
    for client in everyone:
        await client.wait_for(lambda c: "after the rail" in texts(c), MARGIN)
    for player in players:
        assert "coaching from the rail" not in texts(player)
    # Errors of their own: a line too long, a flood.
    with pytest.raises(ServerError) as caught:
        await players[0].say(text="x" * 201)
    assert caught.value.code == "chat_too_long"
    codes = []
    for number in range(12):
        try:
            await players[1].say(text=f"flood {number}")
        except ServerError as refused:
            codes.append(refused.code)
    assert "rate_limited" in codes
    # A reconnection (through the balancer, on whichever replica) shows the last lines again.
    token = players[1].token
    assert token is not None
    await players[1].close()
    again, _ = await resume_through(clients, cluster.ws_url, room_id, token, "P1 again")
    await again.wait_for(lambda c: "after the rail" in texts(c), MARGIN)
    assert "AS KH QD" in texts(again) and "coaching from the rail" not in texts(again)
    watcher = await connect(clients, cluster.ws_url, "late watcher")
    await watcher.watch(room_id)
    await watcher.wait_for(lambda c: "coaching from the rail" in texts(c) and "after the rail" in texts(c),
                           MARGIN)


async def test_a_seat_resumed_on_another_replica_is_taken_from_the_first_connection(
    cluster: Cluster, clients: list[WhistClient],
) -> None:
    room_id, players = await seated_room(clients, [ws_of(cluster, 0), ws_of(cluster, 1)], 0.0)
    await players[0].wait_for(lambda c: c.view is not None and bool(c.view["to_act"]), MARGIN)
    first = players[1]
    token = first.token
    assert token is not None
    second, answer = await resume_through(clients, ws_of(cluster, 2), room_id, token, "second tab")
    assert answer["seat"] == 1
    state = first_state(second)
    assert state is not None and shows_the_seat(state, 1), state
    await first.wait_for(lambda c: c.state is not None and c.state["you"]["spectator"], MARGIN)
    with pytest.raises(ServerError) as caught:
        await first.act("pass")
    assert caught.value.code == "spectator_cannot_act"
    # The seat plays on through the second connection only (seat 0 plays when it is to act).
    deadline = time.monotonic() + MARGIN
    while not second.my_turn():
        assert time.monotonic() < deadline, "seat 1 was never to act"
        if players[0].my_turn() and players[0].view is not None:
            with contextlib.suppress(ServerError):
                await players[0].act(players[0].view["legal"][0])
        with contextlib.suppress(TimeoutError):
            await second.wait_for(lambda c: c.my_turn() or players[0].my_turn(), 1.0)
    assert second.view is not None
    await second.act(second.view["legal"][0])
