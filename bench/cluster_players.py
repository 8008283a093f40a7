"""Players of the cluster tests: a seat (or a spectator) that plays random legal actions through one
address, reconnects with its seat token when its connection drops (a replica killed or restarted), and
keeps every frame it received and every action the server accepted; and the checks of what they saw
(hidden cards, every card played seen by every seat)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random
import time
from collections.abc import Mapping
from typing import Any

import redis.asyncio
from websockets.exceptions import WebSocketException

from bench.leak_check import DealKey, hidden_card_leaks
from server.client import ServerError, WhistClient
from server.store.connect import parse_redis_url, redis_client
from server.store.keys import Keys
from server.store.redis import RedisStore
from server.table import from_stored
from server.table.state import deal_records

__all__ = ["Player", "acted", "cards_played", "cards_seen", "cluster_primary_port", "hidden_card_leaks",
           "is_subsequence", "mid_deal", "owner_replica", "records_of", "stored_records"]

JSON = dict[str, Any]
# Refusals a player may get for an action chosen on a view that was already old, or while the store
# is away: it waits for the next state (or a moment) and chooses again.
RETRYABLE = frozenset({"not_your_turn", "illegal_action", "store_unavailable", "conflict", "deal_in_progress",
                       "not_started", "rate_limited"})
THINK = (0.01, 0.06)  # seconds a player waits before acting: the server allows 20 messages a second


class Player:
    """One seat's player (`token` given after `take_seat`), or a spectator (`seat` None)."""

    def __init__(self, name: str, url: str, reconnect_url: str | None = None, seed: int = 0) -> None:
        self.name = name
        self.url = url
        self.reconnect_url = reconnect_url or url
        self.random = random.Random(seed)
        self.client: WhistClient | None = None
        self.room_id: str | None = None
        self.token: str | None = None
        self.seat: int | None = None
        self.frames: list[list[JSON]] = []  # the frames of each connection, in order
        self.accepted: list[tuple[int, int, str]] = []  # (deal number, seat, action) answered ok
        self.refused: list[str] = []  # codes of refused actions
        self.reconnects = 0

    async def connect(self) -> WhistClient:
        """A new connection (to `url` the first time, then to `reconnect_url`)."""
        url = self.url if self.client is None else self.reconnect_url
        client = await WhistClient.connect(url, name=self.name)
        self.client = client
        self.frames.append(client.received)
        return client

    async def take_seat(self, room_id: str, seat: int) -> None:
        """Join `room_id` at `seat`."""
        client = await self.connect()
        await client.join(room_id, seat)
        self.room_id, self.token, self.seat = room_id, client.token, seat

    async def watch(self, room_id: str) -> None:
        """Watch `room_id`."""
        client = await self.connect()
        await client.watch(room_id)
        self.room_id = room_id

    async def reconnect(self, timeout: float = 60.0) -> None:
        """Connect again (through the balancer) and take the seat back with the token."""
        assert self.room_id is not None
        deadline = time.monotonic() + timeout
        while True:
            try:
                client = await self.connect()
                if self.token is not None:
                    await client.resume(self.room_id, self.token)
                else:
                    await client.watch(self.room_id)
                self.reconnects += 1
                return
            except (OSError, ConnectionError, ServerError, TimeoutError, WebSocketException):
                # The balancer may still send to the dead replica (502) until its health check fails.
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.3)

    @property
    def room(self) -> JSON | None:
        """The room facts of the latest state."""
        return self.client.room if self.client is not None else None

    def deals_played(self) -> int:
        """Deals played to the end in the room, as this player last saw it."""
        room = self.room
        return int(room["played_deals"]) if room else 0

    async def play(self, until: Any = None, timeout: float = 300.0) -> None:
        """Play random legal actions (passing half the time in the auction) and `ready` between deals,
        reconnecting when the connection drops, until the session is over or `until(self)` holds."""
        deadline = time.monotonic() + timeout
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}: the table did not finish in {timeout} s")
            client = self.client
            assert client is not None
            try:
                room = client.room
                if room is not None and (room["session_over"] or (until is not None and until(self))):
                    return
                await self._step(client)
            except (ConnectionError, OSError, WebSocketException):
                await self.reconnect()

    async def _step(self, client: WhistClient) -> None:
        view, room = client.view, client.room
        if view is None or room is None or self.seat is None:
            await self._wait_change(client)
            return
        if view["phase"] == "end":
            if not room["seats"][self.seat]["ready"]:
                with contextlib.suppress(ServerError):
                    await client.ready()
            await self._wait_change(client)
            return
        if not client.my_turn():
            await self._wait_change(client)
            return
        await asyncio.sleep(self.random.uniform(*THINK))
        legal = list(view["legal"])
        action = "pass" if "pass" in legal and self.random.random() < 0.5 else self.random.choice(legal)
        deal = int(room["deal_number"])
        try:
            await client.act(action)
            self.accepted.append((deal, self.seat, action))
        except ServerError as problem:
            if problem.code not in RETRYABLE:
                raise
            self.refused.append(problem.code)
            if problem.code in ("store_unavailable", "rate_limited"):
                await asyncio.sleep(0.5)
                return
        await self._wait_change(client, view)

    @staticmethod
    async def _wait_change(client: WhistClient, seen: JSON | None = None, timeout: float = 3.0) -> None:
        """Until a new state arrives (or a moment passes: then the loop looks again)."""
        state = client.state
        with contextlib.suppress(TimeoutError):
            await client.wait_for(lambda c: c.state is not state or (seen is not None and c.view is not seen),
                                  timeout)
        if client.closed.is_set():
            raise ConnectionError("connection closed")

    async def close(self) -> None:
        """Close the connection."""
        if self.client is not None:
            with contextlib.suppress(Exception):
                await self.client.close()


async def records_of(player: Player) -> dict[DealKey, JSON]:
    """The room's finished deals, keyed as the leak check wants them."""
    assert player.client is not None and player.room_id is not None
    return {(player.room_id, number): record for number, record in enumerate(await player.client.records())}


def cards_seen(player: Player) -> list[tuple[str, int, int, str]]:
    """Every card play this player was told of by `events` pushes: (room, deal, seat, card), in order
    and without repeats (a reconnection may show the same trick again only through a `state`)."""
    seen: list[tuple[str, int, int, str]] = []
    for frames in player.frames:
        for message in frames:
            if message.get("type") == "events":
                for event in message["events"]:
                    if event["type"] == "card":
                        item = (message["room_id"], message["deal_number"], event["seat"], event["card"])
                        if item not in seen:
                            seen.append(item)
    return seen


def cards_played(records: Mapping[DealKey, JSON]) -> list[tuple[str, int, int, str]]:
    """Every card play of the records: (room, deal, seat, card), in order."""
    return [(room_id, number, int(seat), action.split()[1])
            for (room_id, number), record in sorted(records.items())
            for seat, action in record["actions"] if action.startswith("play ")]


def acted(records: Mapping[DealKey, JSON]) -> list[tuple[int, int, str]]:
    """Every action of the records: (deal, seat, action)."""
    return [(number, int(seat), action) for (_, number), record in sorted(records.items())
            for seat, action in record["actions"]]


async def sentinel_primary_port(described: Mapping[str, Any]) -> int | None:
    """The Redis primary's port as the first sentinel of a cluster's `--describe` file that answers
    names it (None while none does)."""
    for entry in described["processes"]:
        if entry["role"] != "sentinel":
            continue
        client = redis.asyncio.Redis(port=int(entry["port"]), socket_timeout=3, decode_responses=True)
        try:
            found = await client.sentinel_get_master_addr_by_name(described["sentinel_service"])
        except Exception:
            continue
        finally:
            await client.aclose()
        if isinstance(found, list | tuple) and found:
            return int(found[1])
    return None


async def cluster_primary_port(described: Mapping[str, Any], shard: int) -> int | None:
    """The port of the Redis Cluster node that is primary of `shard` now (shards numbered as the
    launcher's `--describe` file numbers them: primaries by their first slot), as the first node of
    the description that answers `CLUSTER NODES` says; None while it names none that is up."""
    from server.cluster.rediscluster import parse_cluster_nodes

    for entry in described["processes"]:
        if entry["role"] != "redis":
            continue
        client = redis.asyncio.Redis(port=int(entry["port"]), socket_timeout=3, decode_responses=True)
        try:
            layout = parse_cluster_nodes(await client.execute_command("CLUSTER NODES"))
        except Exception:
            continue
        finally:
            await client.aclose()
        for port, place in layout.items():
            if place["role"] == "primary" and place["shard"] == shard and not place["failed"]:
                return port
        return None
    return None


async def owner_replica(store_url: str, room_id: str) -> str | None:
    """The replica id of the process that holds the room's lease (process ids start with it)."""
    address = parse_redis_url(store_url)  # one Redis, or the primary the sentinels name
    redis = redis_client(address, decode_responses=False, max_connections=2, pool_timeout=10)
    try:
        owner = await redis.get(Keys(address.prefix).room_owner(room_id))
    finally:
        await redis.aclose()
    text = owner.decode() if isinstance(owner, bytes) else owner
    return str(text).split(":", 1)[0] if text else None


def mid_deal(client: WhistClient) -> bool:
    """Cards are being played (a deal may end early: this waits for one that is under way)."""
    view = client.view
    return view is not None and view["phase"] == "play" and bool(view.get("trick") or view.get("tricks"))


async def stored_records(store_url: str, room_id: str) -> list[JSON]:
    """The room's deal records, from what the store (for Sentinel, the primary named now) holds."""
    store = RedisStore(store_url)
    try:
        stored = await store.load(room_id)
        assert stored is not None, f"room {room_id} is not in the store"
        table = from_stored(stored.state, stored.version, await store.read_log(room_id))
        return deal_records(table.session, table.hints)
    finally:
        await store.close()


def is_subsequence(wanted: list[Any], found: list[Any]) -> bool:
    """Whether `wanted` appears in `found` in order (other items may lie between)."""
    rest = iter(found)
    return all(item in rest for item in wanted)


def check_moves(players: list[Player], records: list[JSON], min_deals: int = 1) -> None:
    """Every move answered `ok` is in the records once, in the order it was made, and at least
    `min_deals` deals were recorded (a session of whist runs to a target and may end early)."""
    recorded = [(number, int(seat), action) for number, record in enumerate(records)
                for seat, action in record["actions"]]
    assert len(records) >= max(1, min_deals), f"{len(records)} deals recorded, at least {min_deals} expected"
    for player in players:
        assert player.accepted, f"{player.name} made no move"
        mine = [move for move in recorded if move[1] == player.seat]
        assert is_subsequence(player.accepted, mine), \
            f"{player.name}: a move answered ok is missing from the records or out of order"
    counted = collections.Counter(recorded)
    accepted = collections.Counter(move for player in players for move in player.accepted)
    assert not accepted - counted, "a move answered ok is missing from the records, or was applied twice"
    cards = [move for move in recorded if move[2].startswith("play ")]
    assert len(cards) == len(set(cards)), "a card was recorded twice"
