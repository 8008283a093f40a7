"""The Sentinel topology of the cluster launcher (`python -m server.cluster --redis sentinel`): two
server replicas behind HAProxy on `redis+sentinel://...`, a Redis primary, two Redis replicas and three
sentinels. Tables play through the balancer (each table's players spread over both servers) while the
Redis primary is SIGKILLed mid-deal: every table plays on by itself once a replica is promoted, no
connection is dropped, every move answered `ok` is in the room's deal records (read from the new
primary) exactly once and in order, and the old primary, started again, rejoins as a replica.

With the replicas frozen, a move no replica confirms is refused (`store_unavailable`), shown as the
store holds it, and play goes on once they run again.

Two Redis replicas: the primaries refuse writes without one replica in step (`min-replicas-to-write
1`), so with a single replica the promoted one would refuse every move until the old primary came back.

Every wait is a condition with a generous deadline (the machine is shared): nothing here asserts how
fast anything happens. Processes are started from the main thread only (server/cluster/processes.py)."""

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
import redis.asyncio

from bench.cluster_players import Player, check_moves, mid_deal, sentinel_primary_port, stored_records
from server.bots import get_bot
from server.client import ServerError, WhistClient
from server.cluster.processes import pid_alive, spawn, stop, wait_until
from server.rules import ruleset_names

ROOT = Path(__file__).resolve().parents[2]
TABLES = 3
DEALS = 6  # long enough that no table ends its session between its first trick and the kill
JSON = dict[str, Any]
RANDOM = get_bot("random")


class Launched:
    """The launcher's process and what it described."""

    def __init__(self, process: subprocess.Popen[bytes], described: JSON, logs: Path) -> None:
        self.process = process
        self.described = described
        self.logs = logs

    @property
    def ws_url(self) -> str:
        return str(self.described["url"]).replace("http://", "ws://") + "ws"

    @property
    def store(self) -> str:
        return str(self.described["store"])

    def of_role(self, role: str) -> list[JSON]:
        return [entry for entry in self.described["processes"] if entry["role"] == role]

    async def primary_port(self) -> int | None:
        """The primary's port as the first sentinel that answers names it."""
        return await sentinel_primary_port(self.described)


@pytest.fixture(scope="module")
def launched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Launched]:
    """`python -m server.cluster --redis sentinel` with its logs kept in pytest's temporary directory."""
    directory = tmp_path_factory.mktemp("sentinel-cluster")
    describe, logs = directory / "describe.json", directory / "logs"
    with (directory / "launcher.log").open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "server.cluster", "--redis", "sentinel", "--redis-replicas", "2",
             "--replicas", "2", "--port", "0", "--bot-delay", "0", "--describe", str(describe),
             "--logs", str(logs)], cwd=ROOT, stdout=output, stderr=subprocess.STDOUT)
    try:
        wait_until(describe.exists, 240, "the cluster started and described", process,
                   directory / "launcher.log")
        yield Launched(process, json.loads(describe.read_text()), logs)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(90)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def test_the_description_names_every_process_with_its_role(launched: Launched) -> None:
    roles = collections.Counter(entry["role"] for entry in launched.described["processes"])
    assert roles == {"balancer": 1, "server": 2, "redis": 3, "sentinel": 3}
    started = sorted(entry["started_as"] for entry in launched.of_role("redis"))
    assert started == ["primary", "replica", "replica"]
    assert all(entry["pid"] and entry["port"] and entry["host"] for entry in launched.described["processes"])
    assert launched.store.startswith("redis+sentinel://") and launched.store.endswith("/whist")
    assert launched.described["sentinel_service"] == "whist"


async def open_table(launched: Launched, ruleset: str, seed: int) -> list[Player]:
    """A started room of four human players through the balancer (spread over both servers)."""
    players = [Player(f"P{seat}", launched.ws_url, launched.ws_url, seed * 10 + seat) for seat in range(4)]
    async with await WhistClient.connect(launched.ws_url, name="Host") as host:
        room = await host.create_room(ruleset, seat=None, session={"deals": DEALS}, bot="random",
                                      grace_seconds=120)
        for seat, player in enumerate(players):
            await player.take_seat(str(room["room_id"]), seat)
        await host.start()
    return players


async def test_the_primary_killed_mid_deal_every_table_plays_on_and_no_acknowledged_move_is_lost(
    launched: Launched,
) -> None:
    tables = [await open_table(launched, ruleset, number)
              for number, ruleset in enumerate(ruleset_names()[:TABLES])]
    playing = [asyncio.create_task(player.play(timeout=900)) for players in tables for player in players]
    restarted: subprocess.Popen[bytes] | None = None
    try:
        for players in tables:
            await players[0].client.wait_for(mid_deal, 180)  # type: ignore[union-attr]
        old_port = await launched.primary_port()
        [old] = [entry for entry in launched.of_role("redis") if entry["port"] == old_port]
        assert old["started_as"] == "primary"
        os.kill(int(old["pid"]), signal.SIGKILL)
        # What each table's first player had seen when the primary died: every table was mid-session.
        versions = {players[0].room_id: int(players[0].room["version"]) for players in tables}  # type: ignore[index]
        assert not any(players[0].room["session_over"] for players in tables)  # type: ignore[index]

        deadline = time.monotonic() + 120
        while (new_port := await launched.primary_port()) in (None, old_port):
            assert time.monotonic() < deadline, "the sentinels named no new primary"
            await asyncio.sleep(0.2)
        # Every table plays on by itself, to the end of its session.
        await asyncio.gather(*playing)
        for players in tables:
            room_id = players[0].room_id
            assert room_id is not None and players[0].room is not None
            assert int(players[0].room["version"]) > versions[room_id], "the table did not move on"
            assert all(player.reconnects == 0 for player in players), "a connection was dropped"
            check_moves(players, await stored_records(launched.store, room_id), min_deals=DEALS)
        # Moves tried while no primary answered were refused as such (and tried again), not lost.
        refused = collections.Counter(code for players in tables for player in players
                                      for code in player.refused)
        assert refused["store_unavailable"] > 0, refused

        # The old primary, started again with its own command line, rejoins as a replica of the new one.
        restarted = spawn(list(old["argv"]), Path(old["log"]))
        client = redis.asyncio.Redis(port=int(old["port"]), socket_timeout=3, decode_responses=True)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    info = await client.info("replication")
                except Exception:
                    info = {}
                if info.get("role") == "slave" and int(info.get("master_port", 0)) == new_port \
                        and info.get("master_link_status") == "up":
                    break
                assert time.monotonic() < deadline, f"the old primary did not rejoin as a replica: {info}"
                await asyncio.sleep(0.2)
        finally:
            await client.aclose()
    finally:
        for task in playing:
            task.cancel()
        for players in tables:
            for player in players:
                await player.close()
        stop(restarted)


async def test_a_move_no_replica_confirms_is_refused_shown_as_stored_and_play_resumes_with_the_replicas(
    launched: Launched,
) -> None:
    # The Redis replicas are frozen (SIGSTOP): the primary still takes the save, but WAIT finds no
    # replica within 500 ms, so the move is refused with store_unavailable; the room is read again and
    # the player is shown what the store holds (the move). Once the replicas run again, play goes on.
    primary = await launched.primary_port()
    replicas = [entry for entry in launched.of_role("redis")
                if entry["port"] != primary and pid_alive(int(entry["pid"]))]
    assert replicas, "no Redis replica runs"
    client = await WhistClient.connect(launched.ws_url, name="Solo")
    frozen = False
    try:
        await client.create_room("solo-whist", seat=0, session={"deals": 1}, bot="random", listed=False)
        await client.start()
        await client.wait_for(lambda c: c.my_turn(), 120)
        assert client.view is not None
        action = client.view["legal"][0]
        for entry in replicas:
            os.kill(int(entry["pid"]), signal.SIGSTOP)
        frozen = True
        with pytest.raises(ServerError) as caught:
            await client.act(action)  # well within the 5 s before the primary refuses writes itself
        assert caught.value.code == "store_unavailable"
        assert "replicas did not confirm" in caught.value.message, caught.value.message
        assert not client.closed.is_set()
        await client.wait_for(lambda c: c.view is not None and [0, action] in c.view["calls"], 120)
        for entry in replicas:
            os.kill(int(entry["pid"]), signal.SIGCONT)
        frozen = False
        final = await client.play_until_session_over(RANDOM, timeout=600)
        assert final["session_over"]
        assert client.room_id is not None
        first = (await stored_records(launched.store, client.room_id))[0]  # a deal thrown in may follow
        seat0 = [move for seat, move in first["actions"] if int(seat) == 0]
        assert seat0[:1] == [action], "the refused move, which the primary kept, is seat 0's first"
    finally:
        if frozen:
            for entry in replicas:
                os.kill(int(entry["pid"]), signal.SIGCONT)
        await client.close()
