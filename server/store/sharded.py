"""Lean pipelines on a Redis Cluster: a batch of commands split by the node that serves each command's
key, one lean batch per node (server/store/lean_pipeline.py), all nodes at once.

A command's key decides its node: the primary of the key's hash slot, as the cluster client's slot map
says (`RedisCluster.nodes_manager`). A `MOVED` answer (the slot moved: a failover, a resharding) ran
nothing: the map is asked for again and those commands sent again, to the node named then. A node
that fails (its connection drops or times out) fails only its own commands: each of them gets the
`ConnectionError` in its place (which of them ran is unknown), the other nodes' answers stand, and the
map is asked for again before the next batch (the node may have been replaced by its replica).

`tail` commands (`WAIT`, `ROLE`) are sent after each node's share of the batch, on the same
connection (`tail` may be a function of the node's name: a tail of its own for each node):
`run_with_tail` gives each command its node's name and that node's answers to its tail.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import hiredis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import AbstractConnection
from redis.crc import key_slot
from redis.exceptions import AskError, MovedError, ResponseError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .connect import refuses_writes
from .lean_pipeline import Command, LeanPipeline

# A batch's commands that answered MOVED (or ASK, TRYAGAIN: the slot is moving) are sent again at most
# this many times, the slot map asked for again before each.
MOVED_RETRIES = 3

Tail = Sequence[Command] | Callable[[str], Sequence[Command]]


def command_key(command: Command) -> str | bytes | None:
    """The key that routes a command (None for a keyless one: it may go anywhere). `EVAL[SHA] script
    numkeys key...` routes by its first key; the other commands the lean pipelines send (`SET`,
    `PUBLISH`, `SPUBLISH`, ...) by their first argument."""
    name = str(command[0]).upper()
    if name in ("EVAL", "EVALSHA"):
        return _text_or_bytes(command[3]) if int(command[2]) > 0 else None
    if name in ("WAIT", "ROLE", "PING"):
        return None
    return _text_or_bytes(command[1]) if len(command) > 1 else None


def _text_or_bytes(value: str | bytes | int | float) -> str | bytes:
    return value if isinstance(value, str | bytes) else str(value)


def slot_of(key: str | bytes) -> int:
    """The hash slot of a key (its `{tag}`, if it has one)."""
    return int(key_slot(key.encode() if isinstance(key, str) else key))


class ClusterLeanPipeline:
    """Runs batches of commands over a cluster's primaries, at most `connections` batches at once per
    node (the others wait for one)."""

    def __init__(self, client: RedisCluster, connections: int = 4) -> None:
        self.client = client
        self.connections = connections
        self._nodes: dict[str, _NodeLane] = {}
        self._refresh = False

    async def run(self, commands: Sequence[Command]) -> list[Any]:
        """Each command's reply, in order (an error, a failed node's `ConnectionError` included, in its
        place: see the module docstring)."""
        replies, _ = await self.run_with_tail(commands, ())
        return replies

    async def run_with_tail(self, commands: Sequence[Command], tail: Tail
                            ) -> tuple[list[Any], list[tuple[str, list[Any]]]]:
        """(each command's reply, (its node's name, that node's replies to `tail`) of each command)."""
        if not commands:
            return [], []
        await self._ready()
        replies: list[Any] = [None] * len(commands)
        tails: list[tuple[str, list[Any]]] = [("", []) for _ in commands]
        pending = list(range(len(commands)))
        for attempt in range(MOVED_RETRIES + 1):
            groups: dict[str, tuple[ClusterNode, list[int]]] = {}
            for index in pending:
                node = self._node_of(commands[index])
                groups.setdefault(node.name, (node, []))[1].append(index)
            outcomes = await asyncio.gather(*(
                self._lane(node).run([commands[index] for index in indexes],
                                     tail(node.name) if callable(tail) else tail)
                for node, indexes in groups.values()))
            moved = []
            for (node, indexes), outcome in zip(groups.values(), outcomes, strict=True):
                if isinstance(outcome, BaseException):
                    self._refresh = True
                    for index in indexes:
                        replies[index], tails[index] = outcome, (node.name, [])
                    continue
                answers, tail_answers = outcome
                for index, answer in zip(indexes, answers, strict=True):
                    replies[index], tails[index] = answer, (node.name, tail_answers)
                    if isinstance(answer, MovedError | AskError | TryAgainError) and attempt < MOVED_RETRIES:
                        moved.append(index)
            if not moved:
                break
            pending = moved
            await self._refresh_map()
        return replies, tails

    async def _ready(self) -> None:
        await self.client.initialize()  # the first time: the slot map (later: a refresh asked for)
        if self._refresh:
            await self._refresh_map()

    async def _refresh_map(self) -> None:
        self._refresh = False
        try:
            await self.client.nodes_manager.initialize()
        except Exception:
            self._refresh = True  # no node answered: try again before the next batch

    def _node_of(self, command: Command) -> ClusterNode:
        key = command_key(command)
        if key is None:
            return self.client.get_default_node()
        return self.client.nodes_manager.get_node_from_slot(slot_of(key))

    def _lane(self, node: ClusterNode) -> _NodeLane:
        lane = self._nodes.get(node.name)
        if lane is None or lane.node is not node:
            lane = self._nodes[node.name] = _NodeLane(node, self.connections)
        return lane


class _NodeLane:
    """The batches of one node: at most `connections` at once, each on a connection held out of the
    node's pool (given back when the lane is dropped with its node, or broken)."""

    def __init__(self, node: ClusterNode, connections: int) -> None:
        self.node = node
        self._slots = asyncio.Semaphore(connections)
        self._idle: list[AbstractConnection] = []

    async def run(self, commands: Sequence[Command], tail: Sequence[Command]
                  ) -> tuple[list[Any], list[Any]] | BaseException:
        """(the replies to `commands`, to `tail`), or the exception that broke the connection."""
        async with self._slots:
            connection = self._idle.pop() if self._idle else self.node.acquire_connection()
            try:
                if not connection.is_connected:
                    await connection.connect()  # type: ignore[no-untyped-call]
                everything = [*commands, *tail]
                packed = b"".join(hiredis.pack_command(tuple(command)) for command in everything)  # type: ignore[arg-type]
                await connection.send_packed_command(packed, check_health=False)
                replies: list[Any] = []
                refused = False
                for _ in everything:
                    try:
                        replies.append(await connection.read_response())
                    except ResponseError as error:  # read whole: the connection is in step
                        replies.append(error)
                        refused = refused or refuses_writes(error)
                if refused:
                    await connection.disconnect(nowait=True)
            except (RedisConnectionError, RedisTimeoutError, OSError) as failure:
                await connection.disconnect(nowait=True)
                self._idle.append(connection)
                return failure
            except BaseException:
                await connection.disconnect(nowait=True)  # replies may be left unread
                self._idle.append(connection)
                raise
            self._idle.append(connection)
            return replies[:len(commands)], replies[len(commands):]


def lean_pipeline(client: Any, connections: int = 4) -> LeanPipeline | ClusterLeanPipeline:
    """The lean pipeline of a client made by `connect.redis_client`: over the nodes of a cluster, or on
    the pool of one Redis (or of the Sentinel service's primary)."""
    if isinstance(client, RedisCluster):
        return ClusterLeanPipeline(client, connections)
    return LeanPipeline(client.connection_pool, connections)


def is_cluster(client: Any) -> bool:
    """Whether a client made by `connect.redis_client` is a Redis Cluster's."""
    return isinstance(client, RedisCluster)
