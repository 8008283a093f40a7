"""Tables served by several processes on one Redis, behind HAProxy, started with the
cluster launcher: players of one room on different replicas, the owner killed, Redis stopped, two
moves at once through two replicas, and a rolling restart while tables play.

Processes are started from the main thread only (a child started from another thread gets SIGKILL
when that thread ends: see server/cluster/processes.py). Every wait is a condition with a generous
timeout (the machine is shared): nothing here asserts how fast anything happens."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import threading
from collections.abc import Iterator

import pytest

from bench.cluster_players import (
    Player,
    acted,
    cards_played,
    cards_seen,
    hidden_card_leaks,
    mid_deal,
    owner_replica,
    records_of,
)
from server.client import ServerError, WhistClient
from server.cluster import Cluster
from server.cluster.processes import wait_until
from server.rules import ruleset_names
from server.store.redis import RedisStore
from server.table import facts, from_stored

REPLICAS = 3


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """Three replicas (bots act at once) behind HAProxy, on a private Redis; the processes' logs are
    kept in pytest's temporary directory."""
    # Every client is on this host: the per-address limits are lifted.
    server_args = ["--bot-delay", "0", "--log-level", "warning", "--max-connections-per-address", "0",
                   "--max-rooms-per-address", "0"]
    with Cluster(replicas=REPLICAS, server_args=server_args,
                 directory=tmp_path_factory.mktemp("cluster")) as running:
        yield running


def ws_of(cluster: Cluster, index: int) -> str:
    """A replica's own WebSocket address (not through the balancer)."""
    return cluster.replicas[index].url.replace("http://", "ws://") + "ws"


async def open_table(cluster: Cluster, ruleset: str, urls: list[str], spectator_url: str, seed: int,
                     deals: int = 1, grace: float = 60.0) -> tuple[list[Player], Player]:
    """A started room whose first seats are humans connected through `urls` (one per seat; the other
    seats get bots), and a spectator; each reconnects through the balancer."""
    players = [Player(f"P{seat}", url, cluster.ws_url, seed * 10 + seat) for seat, url in enumerate(urls)]
    async with await WhistClient.connect(cluster.ws_url, name="Host") as host:
        room = await host.create_room(ruleset, seat=None, session={"deals": deals}, bot="random",
                                      grace_seconds=grace)
        room_id = str(room["room_id"])
        for seat, player in enumerate(players):
            await player.take_seat(room_id, seat)
        spectator = Player("Watcher", spectator_url, cluster.ws_url)
        await spectator.watch(room_id)
        await host.start()
    return players, spectator


def check_table(players: list[Player], spectator: Player, records: dict[tuple[str, int], dict[str, object]]
                ) -> None:
    """No hidden card in any frame; nothing accepted was lost or applied twice."""
    assert records, "no deal was recorded"
    total = 0
    for player in (*players, spectator):
        for frames in player.frames:
            checked, leaks = hidden_card_leaks(frames, records)
            assert leaks == [], leaks
            total += checked
    assert total > 0
    # Every action a player was told was accepted is in the records, once.
    recorded = collections.Counter(acted(records))
    accepted = collections.Counter(action for player in players for action in player.accepted)
    assert not accepted - recorded, "an accepted action is missing from the records, or was applied twice"


def next_deal(client: WhistClient, seen: int) -> bool:
    """The room has moved past deal number `seen`."""
    return client.room is not None and client.room["deal_number"] != seen



async def close_all(*players: Player) -> None:
    for player in players:
        await player.close()


async def test_players_of_one_room_on_different_replicas_play_whole_deals_in_every_ruleset(
    cluster: Cluster,
) -> None:
    tables = []
    for number, ruleset in enumerate(ruleset_names()):
        # Seat s connects straight to replica s % 3 (so every room has players on every replica); the
        # spectator comes through the balancer.
        urls = [ws_of(cluster, (seat + number) % REPLICAS) for seat in range(4)]
        tables.append(await open_table(cluster, ruleset, urls, cluster.ws_url, number))
    await asyncio.gather(*(player.play(timeout=400) for players, _ in tables for player in players))
    for players, spectator in tables:
        await spectator.client.wait_for(  # type: ignore[union-attr]
            lambda c: c.room is not None and c.room["session_over"], 60)
        records = await records_of(players[0])
        check_table(players, spectator, records)
        played = cards_played(records)
        assert played, "no card was played"
        for player in (*players, spectator):
            assert player.reconnects == 0
            assert cards_seen(player) == played, f"{player.name} did not see every card played"
        await close_all(*players, spectator)


async def test_the_owner_killed_mid_deal_the_deal_completes_for_everyone(cluster: Cluster) -> None:
    # Three humans through the balancer and a bot: the bot plays only where the room's owner is, so the
    # deal completes only if another replica takes the room over.
    players, spectator = await open_table(cluster, "solo-whist", [cluster.ws_url] * 3, cluster.ws_url, 7,
                                          deals=3)
    room_id = players[0].room_id
    assert room_id is not None
    playing = [asyncio.create_task(player.play(timeout=400)) for player in players]
    # Mid-deal: some cards are on the table.
    await players[0].client.wait_for(mid_deal, 120)  # type: ignore[union-attr]
    owner = await owner_replica(cluster.store, room_id)
    assert owner is not None
    index = [replica.replica_id for replica in cluster.replicas].index(owner)
    await asyncio.to_thread(cluster.kill_replica, index)
    try:
        await asyncio.gather(*playing)
        records = await records_of(players[0])
        check_table(players, spectator, records)
        assert players[0].deals_played() >= 1
    finally:
        for task in playing:
            task.cancel()
        await close_all(*players, spectator)
        # From this (the main) thread: a child started from another thread dies when that thread ends.
        cluster.restart_replica(index)


async def session_over(store_url: str, room_id: str) -> bool:
    """Whether the stored room's session is over (read from the store: no connection enters the room)."""
    store = RedisStore(store_url)
    try:
        stored = await store.load(room_id)
        assert stored is not None
        entries = await store.read_log(room_id)
        return facts.over(from_stored(stored.state, stored.version, entries))
    finally:
        await store.close()


async def test_the_owner_of_a_room_nobody_else_holds_killed_mid_deal_another_replica_adopts_it(
    cluster: Cluster,
) -> None:
    # The host sits at seat 0 through replica 1, which creates (so owns) the room; bots hold the other
    # seats. Nothing moves while the connected host is to act: replica 1 is killed then, and the host's
    # connection with it. No other replica holds the room (nobody is connected anywhere), so nobody
    # wants its lease: only the adoption of orphaned rooms brings it back. The adopter's grace timer
    # gives seat 0 to a bot, and its bots finish the session.
    host = await WhistClient.connect(ws_of(cluster, 0), name="Host")
    try:
        room = await host.create_room("solo-whist", seat=0, session={"deals": 1}, bot="random",
                                      grace_seconds=2)
        room_id = str(room["room_id"])
        await host.start()
        await host.wait_for(lambda c: c.my_turn(), 60)
        assert await owner_replica(cluster.store, room_id) == cluster.replicas[0].replica_id
        await asyncio.to_thread(cluster.kill_replica, 0)
    finally:
        with contextlib.suppress(Exception):
            await host.close()
    try:
        assert not await session_over(cluster.store, room_id)
        deadline = asyncio.get_running_loop().time() + 120
        while not await session_over(cluster.store, room_id):
            assert asyncio.get_running_loop().time() < deadline, "the session did not finish"
            await asyncio.sleep(0.5)
        survivors = {replica.replica_id for replica in cluster.replicas[1:]}
        assert await owner_replica(cluster.store, room_id) in {None, *survivors}
    finally:
        cluster.restart_replica(0)  # from this (the main) thread


async def test_redis_stopped_and_restarted_mid_deal_the_deal_completes(cluster: Cluster) -> None:
    urls = [ws_of(cluster, seat % REPLICAS) for seat in range(4)]
    players, spectator = await open_table(cluster, "couleur", urls, cluster.ws_url, 11, deals=3)
    room_id = players[0].room_id
    assert room_id is not None
    playing = [asyncio.create_task(player.play(timeout=400)) for player in players]
    await players[0].client.wait_for(mid_deal, 120)  # type: ignore[union-attr]
    await asyncio.to_thread(cluster.stop_redis)
    try:
        # While Redis is away, an action is answered `store_unavailable` and the socket stays open.
        probe = players[0].client
        assert probe is not None
        with pytest.raises(ServerError) as caught:
            await probe.act("pass")
        assert caught.value.code == "store_unavailable"
        assert not probe.closed.is_set()
    finally:
        cluster.start_redis()  # from the main thread (see above); the players wait meanwhile
    try:
        await asyncio.gather(*playing)
        records = await records_of(players[0])
        check_table(players, spectator, records)
        assert all(player.reconnects == 0 for player in players), "sockets were kept"
    finally:
        for task in playing:
            task.cancel()
        await close_all(*players, spectator)


async def test_two_moves_at_once_through_two_replicas_exactly_one_is_applied(cluster: Cluster) -> None:
    players, spectator = await open_table(cluster, "solo-whist", [ws_of(cluster, 0)] * 4, ws_of(cluster, 2),
                                          3, deals=20)
    room_id = players[0].room_id
    assert room_id is not None
    twins: dict[int, WhistClient] = {}
    for seat, player in enumerate(players):  # each seat also connected through replica 2
        twin = await WhistClient.connect(ws_of(cluster, 1), name=f"Twin{seat}")
        assert player.token is not None
        await twin.resume(room_id, player.token)
        twins[seat] = twin
    races = 0
    try:
        while races < 8:
            first = players[0].client
            assert first is not None
            await first.wait_for(lambda c: c.view is not None and (bool(c.view["to_act"])
                                                                   or c.view["phase"] == "end"), 60)
            view = first.view
            assert view is not None and first.room is not None
            if view["phase"] == "end":  # a deal ended (or was thrown in): everyone ready for the next
                deal = first.room["deal_number"]
                for twin in twins.values():  # the seats' holders (the first connections are on the rail)
                    with contextlib.suppress(ServerError):
                        await twin.ready()
                await first.wait_for(functools.partial(next_deal, seen=deal), 60)
                continue
            seat = view["to_act"][0]
            here, there = players[seat].client, twins[seat]
            assert here is not None
            # One seat, one connection: the twin resumed last and holds the seat; the first connection
            # may not have heard yet that it lost it. Both send a move at the same moment.
            await there.wait_for(lambda c: c.my_turn(), 60)
            await race(there, here)
            races += 1
    finally:
        for twin in twins.values():
            await twin.close()
        await close_all(*players, spectator)
    assert races == 8


async def race(holder: WhistClient, other: WhistClient) -> None:
    """The seat's holder and the connection that held it before, on two replicas, send two moves at
    the same moment: exactly one is applied, the other is refused, and both end on the same version."""
    assert holder.view is not None and holder.room is not None
    legal = list(holder.view["legal"])
    before = int(holder.room["version"])
    answers = await asyncio.gather(holder.act(legal[0]), other.act(legal[-1]), return_exceptions=True)
    applied = [answer for answer in answers if not isinstance(answer, BaseException)]
    refused = [answer for answer in answers if isinstance(answer, ServerError)]
    assert len(applied) == 1 and len(refused) == 1, answers
    assert refused[0].code in ("not_your_turn", "illegal_action", "spectator_cannot_act"), refused[0]

    def version(client: WhistClient) -> int:
        return int(client.room["version"]) if client.room is not None else 0

    await holder.wait_for(lambda c: version(c) >= before + 1, 30)
    await other.wait_for(lambda c: version(c) >= before + 1, 30)
    assert other.state is not None and other.state["you"]["spectator"], "the older connection is on the rail"


def test_a_rolling_restart_of_every_replica_while_tables_play_stops_no_table(cluster: Cluster) -> None:
    tables = 3
    progress: dict[str, int] = {}  # room -> the latest version any of its players saw
    stop = threading.Event()
    failures: list[BaseException] = []
    finished: list[tuple[list[Player], dict[tuple[str, int], dict[str, object]]]] = []

    async def play_tables() -> None:
        opened = [await open_table(cluster, ruleset, [cluster.ws_url] * 4, cluster.ws_url, 20 + number,
                                   deals=100)
                  for number, ruleset in enumerate(ruleset_names()[:tables])]

        def note(player: Player) -> bool:
            room = player.room
            if room is not None and player.room_id is not None:
                progress[player.room_id] = max(progress.get(player.room_id, 0), int(room["version"]))
            return stop.is_set()

        await asyncio.gather(*(player.play(until=note, timeout=900)
                               for players, _ in opened for player in players))
        for players, spectator in opened:
            finished.append((players, await records_of(players[0])))
            await close_all(*players, spectator)

    def run() -> None:
        try:
            asyncio.run(play_tables())
        except BaseException as problem:
            failures.append(problem)

    # The players run in a thread of their own, so that they play on while this (main) thread
    # restarts the replicas one at a time.
    thread = threading.Thread(target=run, name="players")
    thread.start()
    try:
        wait_until(lambda: failures or (len(progress) == tables and all(progress.values())), 120,
                   "every table playing")
        for index in range(REPLICAS):
            before = dict(progress)
            cluster.restart_replica(index)
            wait_until(lambda seen=before: failures or all(progress[room] > seen[room] for room in seen),
                       180, f"every table moves on after the restart of replica {index + 1}")
            assert not failures, failures
    finally:
        stop.set()
        thread.join(300)
    assert not failures, failures
    assert not thread.is_alive()
    for players, records in finished:
        done = len(records)
        recorded = collections.Counter(acted(records))
        accepted = collections.Counter(action for player in players for action in player.accepted
                                       if action[0] < done)
        assert not accepted - recorded, "an accepted action is missing from the records, or was applied twice"
        assert sum(player.reconnects for player in players) >= 1, "the restarts dropped no connection"
