"""Fan-out over a Redis Cluster's sharded pub/sub (`SPUBLISH` / `SSUBSCRIBE`, Redis 7).

A room's channel `{room:<id>}:changes` carries the room's hash tag, so it lives on the shard that holds
the room's keys: a change published there reaches the processes subscribed on that shard only, not the
whole cluster. A process holds one subscriber connection per primary that serves a channel it wants
(its rooms' channels, and its inbox), each read by a task of its own; a manager task places every
wanted channel on the primary of its slot, as the cluster client's slot map says.

When a shard's connection drops (its primary died), or the primary says it no longer serves a channel
(an unasked `sunsubscribe`: the slot moved, or the node became a replica), or a periodic look at the
slot map (every `check_interval`, asked again of the cluster) finds a channel's slot on another node,
the channels are placed again on the node that serves them now, and `on_resync(rooms)` is called with
their rooms (their messages meanwhile are lost), as `RedisFanout` does after a reconnect. A primary
that is silent (no answer to a `PING` within `check_interval`) counts as dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from typing import Any

from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.connection import AbstractConnection

from ..store.connect import cluster_node_connection
from ..store.keys import Keys
from ..store.sharded import slot_of
from .fanout import RedisFanout, ResyncCallback, encode

log = logging.getLogger("whist.coord")


class _Shard:
    """One primary's subscriber connection, the channels asked for there, and its reader."""

    def __init__(self, name: str, connection: AbstractConnection) -> None:
        self.name = name
        self.connection = connection
        self.channels: set[str] = set()
        self.heard = time.monotonic()  # when it last said anything (a message, a pong)
        self.reader: asyncio.Task[None] | None = None
        self.broken = False

    async def send(self, *command: str) -> None:
        """One command on the connection (its answer comes to the reader)."""
        await self.connection.send_command(*command, check_health=False)

    async def close(self) -> None:
        """Stop the reader and close the connection."""
        self.broken = True
        if self.reader is not None and self.reader is not asyncio.current_task():
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader
        with contextlib.suppress(Exception):
            await self.connection.disconnect(nowait=True)


class ClusterFanout(RedisFanout):
    """`RedisFanout` on a Redis Cluster: SPUBLISH, and one SSUBSCRIBE connection per primary (see the
    module docstring)."""

    def __init__(self, redis: RedisCluster, keys: Keys, process_id: str, deliver_own: bool = False,
                 on_resync: ResyncCallback | None = None, retry_delay: float = 0.2,
                 max_retry_delay: float = 2.0, check_interval: float = 2.0) -> None:
        super().__init__(redis, keys, process_id, deliver_own, on_resync, retry_delay, max_retry_delay,
                         check_interval)
        self.cluster = redis
        self.check_interval = check_interval
        self._shards: dict[str, _Shard] = {}
        self._where: dict[str, str] = {}  # channel -> the node it is subscribed on
        self._lost: set[str] = set()  # rooms whose channel was dropped: resynced once placed again
        self._wake = asyncio.Event()
        self._refresh = False  # ask the cluster for its slot map before the next placing
        self._placing = asyncio.Lock()  # one placing at a time (the manager's, or a subscribe's)

    @property
    def _inbox(self) -> str:
        return self.keys.process_inbox(self.process_id)

    async def publish(self, room_id: str, change: dict[str, Any]) -> int:
        """SPUBLISH the envelope on the room's channel (on the room's shard)."""
        return (await self.publish_many([(room_id, change)]))[0]

    async def publish_many(self, changes: list[tuple[str, dict[str, Any]]]) -> list[int]:
        """One SPUBLISH each, in one pipeline per shard; how many received each (on its shard)."""
        commands = [("SPUBLISH", self._channel(room_id), encode(self.process_id, change))
                    for room_id, change in changes]
        replies = await self._publishes.run(commands)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return [int(count) for count in replies]

    async def close(self) -> None:
        """Stop the manager, close every shard's connection."""
        await super().close()
        for shard in list(self._shards.values()):
            await shard.close()
        self._shards.clear()
        self._where.clear()

    async def _subscribe_channel(self, room_id: str) -> None:
        # At once (as SUBSCRIBE on one Redis: sent before the caller goes on), on the shard's connection,
        # opened now if this process had none there.
        channel = self._channel(room_id)
        if self.connected.is_set():
            with contextlib.suppress(Exception):  # the manager places it if this fails
                async with self._placing:
                    shard = await self._shard(self._node_for(channel))
                    self._where[channel] = shard.name
                    shard.channels.add(channel)
                    await shard.send("SSUBSCRIBE", channel)
                    return
        self._wake.set()

    async def _unsubscribe_channel(self, room_id: str) -> None:
        channel = self._channel(room_id)
        name = self._where.pop(channel, None)
        shard = self._shards.get(name) if name is not None else None
        if shard is not None:
            shard.channels.discard(channel)
            if not shard.broken:
                with contextlib.suppress(Exception):
                    await shard.send("SUNSUBSCRIBE", channel)
        self._lost.discard(room_id)

    def _node_for(self, channel: str) -> ClusterNode:
        return self.cluster.nodes_manager.get_node_from_slot(slot_of(channel))

    # ---------------------------------------------------------------- the manager

    async def _run(self) -> None:
        delay = self.retry_delay
        checked = time.monotonic()
        while True:
            self._wake.clear()  # before placing: a wake-up meanwhile (a shard dropped) is not lost
            try:
                await self.cluster.initialize()
                if self._refresh:
                    self._refresh = False
                    await self.cluster.nodes_manager.initialize()
                async with self._placing:
                    placed = await self._place()
            except asyncio.CancelledError:
                raise
            except Exception as problem:
                log.warning("fan-out: placing the shard subscriptions failed", extra={"fields": {
                    "error": type(problem).__name__}})
                placed = False
                self._refresh = True
            if placed:
                delay = self.retry_delay
                self.connected.set()
                await self._resync_lost()
                timeout = max(0.0, self.check_interval - (time.monotonic() - checked))
            else:
                self.connected.clear()
                timeout = delay
                delay = min(self.max_retry_delay, delay * 2)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)
            if time.monotonic() - checked >= self.check_interval:
                checked = time.monotonic()
                await self._check()

    async def _check(self) -> None:
        """Periodic: a fresh slot map (a failover elsewhere moves slots without telling this
        subscriber), and a PING on every shard; a shard silent since the last check is dropped."""
        self._refresh = True
        for shard in list(self._shards.values()):
            if time.monotonic() - shard.heard > 2 * self.check_interval:
                await self._drop(shard, "silent")
                continue
            with contextlib.suppress(Exception):
                await shard.send("PING")

    async def _place(self) -> bool:
        """Subscribe every wanted channel on the primary that serves its slot now (and leave the ones no
        longer wanted, or on the wrong node). True when every wanted channel is placed."""
        wanted = {self._inbox, *(self._channel(room) for room in self.listeners)}
        for channel, name in list(self._where.items()):
            shard = self._shards.get(name)
            node = self._node_for(channel) if channel in wanted else None
            if shard is None or shard.broken or node is None or node.name != name:
                del self._where[channel]
                if shard is not None:
                    shard.channels.discard(channel)
                    if not shard.broken:
                        with contextlib.suppress(Exception):
                            await shard.send("SUNSUBSCRIBE", channel)
                if node is not None:
                    self._note_lost(channel)
        unplaced: dict[str, tuple[ClusterNode, dict[int, list[str]]]] = {}
        for channel in wanted - set(self._where):
            node = self._node_for(channel)
            unplaced.setdefault(node.name, (node, {}))[1].setdefault(slot_of(channel), []).append(channel)
        complete = True
        for node, by_slot in unplaced.values():
            try:
                shard = await self._shard(node)
                for channels in by_slot.values():  # one SSUBSCRIBE per slot: a node refuses CROSSSLOT
                    for channel in channels:
                        self._where[channel] = shard.name
                        shard.channels.add(channel)
                    await shard.send("SSUBSCRIBE", *channels)
            except Exception as problem:
                complete = False
                self._refresh = True
                log.warning("fan-out: a shard refused the subscriber", extra={"fields": {
                    "node": node.name, "error": type(problem).__name__}})
                shard_now = self._shards.get(node.name)
                if shard_now is not None:
                    await self._drop(shard_now, "refused")
        for shard in [shard for shard in self._shards.values() if not shard.channels]:
            await shard.close()
            del self._shards[shard.name]
        return complete

    async def _shard(self, node: ClusterNode) -> _Shard:
        shard = self._shards.get(node.name)
        if shard is not None and not shard.broken:
            return shard
        connection = cluster_node_connection(node)
        await connection.connect()
        shard = self._shards[node.name] = _Shard(node.name, connection)
        shard.reader = asyncio.get_running_loop().create_task(self._read(shard), name=f"fanout-{node.name}")
        return shard

    def _note_lost(self, channel: str) -> None:
        room = self._room_of(channel)
        if room is not None and room in self.listeners:
            self._lost.add(room)

    async def _drop(self, shard: _Shard, why: str) -> None:
        """A shard's connection is given up: its channels are placed again (and their rooms resynced)."""
        if self._shards.get(shard.name) is shard:
            del self._shards[shard.name]
        for channel in shard.channels:
            if self._where.get(channel) == shard.name:
                del self._where[channel]
            self._note_lost(channel)
        shard.channels.clear()
        self._refresh = True
        self._wake.set()
        log.warning("fan-out: a shard's subscriber was dropped", extra={"fields": {
            "node": shard.name, "why": why}})
        await shard.close()

    async def _resync_lost(self) -> None:
        rooms = frozenset(room for room in self._lost if self._channel(room) in self._where)
        if not rooms:
            return
        self._lost -= rooms
        self.reconnects += 1
        if self.on_resync is not None:
            result = self.on_resync(rooms)
            if inspect.isawaitable(result):
                await result

    # ---------------------------------------------------------------- each shard's reader

    async def _read(self, shard: _Shard) -> None:
        try:
            while True:
                reply = await shard.connection.read_response(timeout=1.0, push_request=True)
                if reply is None:
                    continue
                shard.heard = time.monotonic()
                self._handle(shard, reply)
        except asyncio.CancelledError:
            raise
        except Exception as problem:
            if not shard.broken:
                shard.reader = None  # this task: `close` must not wait for itself
                await self._drop(shard, type(problem).__name__)

    def _handle(self, shard: _Shard, reply: Any) -> None:
        if not isinstance(reply, list) or not reply:
            return
        kind = reply[0].decode() if isinstance(reply[0], bytes) else str(reply[0])
        if kind == "smessage" and len(reply) >= 3:
            self._received({"channel": reply[1], "data": reply[2]})
        elif kind == "sunsubscribe" and len(reply) >= 2:
            channel = reply[1].decode() if isinstance(reply[1], bytes) else str(reply[1])
            if self._where.get(channel) == shard.name:
                # Not asked for: the node no longer serves the slot (moved, or now a replica).
                del self._where[channel]
                shard.channels.discard(channel)
                self._note_lost(channel)
                self._refresh = True
                self._wake.set()
