"""The Redis Cluster topology of the cluster launcher (`python -m server.cluster --redis cluster`): three
server replicas behind HAProxy on `redis-cluster://...`, three Redis primaries with one replica each
(server/cluster/rediscluster.py).

Every ruleset plays a deal with its players spread over the three servers, with the checks of
test_cluster_tables.py (no hidden card in any frame, every card seen by every seat, nothing accepted
lost or applied twice). Then tables play while one shard's primary is SIGKILLed mid-deal: its replica
is promoted, the tables on that shard play on by themselves (and the others never stop), no
connection is dropped, and every move answered `ok` is in the room's deal records exactly once and in
order (read from the cluster as it is after the failover).

Every wait is a condition with a generous deadline (the machine is shared): nothing here asserts how
fast anything happens (how long the shard's tables stood still is printed). Processes are started from
the main thread only (server/cluster/processes.py)."""

from __future__ import annotations

import asyncio
import collections
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.cluster_players import (
    Player,
    acted,
    cards_played,
    cards_seen,
    check_moves,
    hidden_card_leaks,
    mid_deal,
    records_of,
    stored_records,
)
from server.client import WhistClient
from server.cluster.processes import wait_until
from server.cluster.rediscluster import BUS_OFFSET, cluster_port, parse_cluster_nodes
from server.rules import ruleset_names
from server.store.keys import Keys
from server.store.sharded import slot_of

ROOT = Path(__file__).resolve().parents[2]
REPLICAS = 3
DEALS = 6  # long enough that no table ends its session between its first trick and the kill
TABLES = 6  # over three shards: the killed one has some (checked), the others too, most likely
JSON = dict[str, Any]


class Launched:
    """The launcher's process and what it described."""

    def __init__(self, process: subprocess.Popen[bytes], described: JSON) -> None:
        self.process = process
        self.described = described

    @property
    def ws_url(self) -> str:
        return str(self.described["url"]).replace("http://", "ws://") + "ws"

    def replica_ws(self, index: int) -> str:
        """A server replica's own WebSocket address (not through the balancer)."""
        url = self.described["replicas"][f"r{index + 1}"]
        return str(url).replace("http://", "ws://") + "ws"

    @property
    def store(self) -> str:
        return str(self.described["store"])

    def of_role(self, role: str) -> list[JSON]:
        return [entry for entry in self.described["processes"] if entry["role"] == role]

    def shard_of_room(self, room_id: str) -> int:
        """The shard (as described) whose slots hold the room's keys."""
        slot = slot_of(Keys().room(room_id))
        for entry in self.of_role("redis"):
            spans = entry["slots"]
            if entry["started_as"] == "primary" and any(first <= slot <= last for first, last in spans):
                return int(entry["shard"])
        raise AssertionError(f"no shard serves slot {slot}")


@pytest.fixture(scope="module")
def launched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Launched]:
    """`python -m server.cluster --redis cluster` with its logs kept in pytest's temporary directory."""
    directory = tmp_path_factory.mktemp("redis-cluster")
    describe, logs = directory / "describe.json", directory / "logs"
    with (directory / "launcher.log").open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "server.cluster", "--redis", "cluster", "--replicas", str(REPLICAS),
             "--port", "0", "--bot-delay", "0", "--describe", str(describe), "--logs", str(logs)],
            cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_until(describe.exists, 240, "the cluster started and described", process,
                   directory / "launcher.log")
        yield Launched(process, json.loads(describe.read_text()))
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(90)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def test_the_layout_of_cluster_nodes_names_each_nodes_role_and_shard() -> None:
    nodes = {  # CLUSTER NODES as redis-py reads it; the first primary (by slots) is shard 0
        "127.0.0.1:7002@17002": {"node_id": "b", "flags": "master", "master_id": "-",
                                 "slots": [["8192", "16383"]]},
        "127.0.0.1:7001@17001": {"node_id": "a", "flags": "myself,master", "master_id": "-",
                                 "slots": [["0", "8191"]]},
        "127.0.0.1:7003@17003": {"node_id": "c", "flags": "slave", "master_id": "b", "slots": []},
        "127.0.0.1:7004@17004": {"node_id": "d", "flags": "master,fail", "master_id": "-", "slots": []},
    }
    layout = parse_cluster_nodes(nodes)
    assert layout[7001] == {"node_id": "a", "role": "primary", "shard": 0, "slots": [[0, 8191]],
                            "failed": False}
    assert layout[7002]["shard"] == 1 and layout[7003]["role"] == "replica"
    assert layout[7003]["shard"] == 1 and layout[7003]["slots"] == [[8192, 16383]], "its primary's"
    assert layout[7004]["failed"] and layout[7004]["shard"] is None
    assert cluster_port() + BUS_OFFSET <= 65535


def test_the_description_names_every_redis_node_with_its_shard(launched: Launched) -> None:
    roles = collections.Counter(entry["role"] for entry in launched.described["processes"])
    assert roles == {"balancer": 1, "server": REPLICAS, "redis": 6}
    nodes = launched.of_role("redis")
    assert sorted((entry["shard"], entry["started_as"]) for entry in nodes) == [
        (0, "primary"), (0, "replica"), (1, "primary"), (1, "replica"), (2, "primary"), (2, "replica")]
    covered = sorted(tuple(span) for entry in nodes if entry["started_as"] == "primary"
                     for span in entry["slots"])
    assert covered[0][0] == 0 and covered[-1][1] == 16383
    assert all(entry["pid"] and entry["port"] and entry["node_id"] for entry in nodes)
    assert launched.store.startswith("redis-cluster://")
    assert launched.described["redis"] == "cluster"


async def open_table(launched: Launched, ruleset: str, urls: list[str], seed: int, deals: int,
                     ) -> tuple[list[Player], Player]:
    """A started room of four humans, seat s connected through `urls[s]`, and a spectator through the
    balancer; each reconnects through the balancer."""
    players = [Player(f"P{seat}", url, launched.ws_url, seed * 10 + seat) for seat, url in enumerate(urls)]
    async with await WhistClient.connect(launched.ws_url, name="Host") as host:
        room = await host.create_room(ruleset, seat=None, session={"deals": deals}, bot="random",
                                      grace_seconds=120)
        room_id = str(room["room_id"])
        for seat, player in enumerate(players):
            await player.take_seat(room_id, seat)
        spectator = Player("Watcher", launched.ws_url, launched.ws_url)
        await spectator.watch(room_id)
        await host.start()
    return players, spectator


def check_table(players: list[Player], spectator: Player, records: dict[tuple[str, int], JSON]) -> None:
    """No hidden card in any frame; nothing accepted was lost or applied twice (test_cluster_tables)."""
    assert records, "no deal was recorded"
    total = 0
    for player in (*players, spectator):
        for frames in player.frames:
            checked, leaks = hidden_card_leaks(frames, records)
            assert leaks == [], leaks
            total += checked
    assert total > 0
    recorded = collections.Counter(acted(records))
    accepted = collections.Counter(action for player in players for action in player.accepted)
    assert not accepted - recorded, "an accepted action is missing from the records, or was applied twice"


async def test_every_ruleset_plays_a_deal_with_its_players_on_three_servers(launched: Launched) -> None:
    tables = []
    for number, ruleset in enumerate(ruleset_names()):
        urls = [launched.replica_ws((seat + number) % REPLICAS) for seat in range(4)]
        tables.append(await open_table(launched, ruleset, urls, number, deals=1))
    try:
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
    finally:
        for players, spectator in tables:
            for player in (*players, spectator):
                await player.close()


async def test_one_shards_primary_killed_mid_deal_its_tables_play_on_and_no_acknowledged_move_is_lost(
    launched: Launched,
) -> None:
    rulesets = ruleset_names()
    tables = [await open_table(launched, rulesets[number % len(rulesets)], [launched.ws_url] * 4,
                               100 + number, deals=DEALS)
              for number in range(TABLES)]
    by_shard: dict[int, list[list[Player]]] = {}
    for players, _ in tables:
        assert players[0].room_id is not None
        by_shard.setdefault(launched.shard_of_room(players[0].room_id), []).append(players)
    playing = [asyncio.create_task(player.play(timeout=900)) for players, _ in tables for player in players]
    try:
        for players, _ in tables:
            await players[0].client.wait_for(mid_deal, 180)  # type: ignore[union-attr]
        shard = max(by_shard, key=lambda number: len(by_shard[number]))  # the shard with most tables
        [primary] = [entry for entry in launched.of_role("redis")
                     if entry["shard"] == shard and entry["started_as"] == "primary"]
        killed_at = time.monotonic()
        os.kill(int(primary["pid"]), signal.SIGKILL)
        victims = by_shard[shard]
        versions = {players[0].room_id: int(players[0].room["version"]) for players in victims}  # type: ignore[index]
        assert not any(players[0].room["session_over"] for players in victims)  # type: ignore[index]

        # The killed shard's tables move on by themselves (once its replica is promoted).
        deadline = killed_at + 120
        while not all(int(players[0].room["version"]) > versions[players[0].room_id]  # type: ignore[index]
                      for players in victims):
            assert time.monotonic() < deadline, "a table of the killed shard did not move on"
            await asyncio.sleep(0.1)
        print(f"\nthe killed shard's {len(victims)} tables all moved on {time.monotonic() - killed_at:.1f} s "
              "after the kill")
        # Every table plays on to the end of its session.
        await asyncio.gather(*playing)
        for players, _ in tables:
            room_id = players[0].room_id
            assert room_id is not None
            assert all(player.reconnects == 0 for player in players), "a connection was dropped"
            check_moves(players, await stored_records(launched.store, room_id))
    finally:
        for task in playing:
            task.cancel()
        for players, spectator in tables:
            for player in (*players, spectator):
                await player.close()
