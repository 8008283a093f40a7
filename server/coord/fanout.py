"""Fan-out of committed room changes to every process with connections in the room.

The room's owner (or whichever process committed a change) publishes it on the room's channel
`{room:<id>}:changes` as a msgpack envelope `{"o": origin process id, "c": change}`; the change is
any msgpack-able dict (the live room decides what it holds: typically its new version and what
changed, so a receiver can tell it missed one and reload from the store). Each process holds ONE
pub/sub connection, subscribed to the rooms where it has connections, and calls the listeners of a
room for each message; by default it skips the messages it published itself (it applied them
already).

Redis pub/sub delivers at most once: messages published while a process was disconnected are lost.
The subscriber therefore reconnects by itself (with backoff) and then calls `on_resync(rooms)` with
every subscribed room, so the caller reloads them from the store.

`MemoryFanout` is the in-process twin; twins sharing one `MemoryFanoutHub` behave like processes
sharing one Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import msgpack  # type: ignore[import-untyped]
from redis.asyncio.client import PubSub

from ..store.connect import on_old_primary
from ..store.keys import Keys
from ..store.sharded import lean_pipeline

log = logging.getLogger("whist.coord")


@dataclass(frozen=True, slots=True)
class Change:
    """One committed change of a room, as received."""

    room_id: str
    origin: str  # the process id that published it
    change: dict[str, Any]


Listener = Callable[[Change], None]
ResyncCallback = Callable[[frozenset[str]], Awaitable[None] | None]


class Fanout:
    """Publish a room's changes; subscribe listeners to rooms. Subclasses carry the messages.

    - `publish(room, change)`: send `change` to every process subscribed to `room`.
    - `subscribe(room, listener)` / `unsubscribe(room, listener)`: a room's channel is subscribed
      while it has at least one listener.
    - `start()` / `close()`.
    """

    def __init__(self, process_id: str, deliver_own: bool = False,
                 on_resync: ResyncCallback | None = None) -> None:
        self.process_id = process_id
        self.deliver_own = deliver_own
        self.on_resync = on_resync
        self.listeners: dict[str, list[Listener]] = {}

    @property
    def rooms(self) -> frozenset[str]:
        """The rooms subscribed to."""
        return frozenset(self.listeners)

    # Whether what is published here reaches other server processes (Redis) or stays in this one (the
    # in-memory twins: a process alone on its store, or tests).
    crosses_processes = True

    def alone(self, room_id: str) -> bool:
        """Whether this fan-out knows that no other process follows the room (then nothing need be
        published). Redis cannot know before it publishes: False (`publish` answers how many heard)."""
        return False

    async def subscribe(self, room_id: str, listener: Listener) -> None:
        """Call `listener` for each change of the room from now on."""
        first = room_id not in self.listeners
        self.listeners.setdefault(room_id, []).append(listener)
        if first:
            await self._subscribe_channel(room_id)

    async def unsubscribe(self, room_id: str, listener: Listener) -> None:
        """Stop calling `listener` for the room (the channel is left when no listener remains)."""
        listeners = self.listeners.get(room_id)
        if listeners is None or listener not in listeners:
            return
        listeners.remove(listener)
        if not listeners:
            del self.listeners[room_id]
            await self._unsubscribe_channel(room_id)

    def deliver(self, room_id: str, origin: str, change: dict[str, Any]) -> None:
        """Hand a received change to the room's listeners (a failing listener does not stop others)."""
        if origin == self.process_id and not self.deliver_own:
            return
        message = Change(room_id, origin, change)
        for listener in list(self.listeners.get(room_id, ())):
            try:
                listener(message)
            except Exception:
                log.exception("fan-out listener failed", extra={"fields": {"room": room_id}})

    async def publish(self, room_id: str, change: dict[str, Any]) -> int:
        """Send a change to every subscribed process; returns how many received it (Redis count)."""
        raise NotImplementedError

    async def publish_many(self, changes: list[tuple[str, dict[str, Any]]]) -> list[int]:
        """`publish` each (room id, change), in order; how many received each."""
        return [await self.publish(room_id, change) for room_id, change in changes]

    async def start(self, timeout: float = 10.0, on_resync: ResyncCallback | None = None) -> None:
        """Connect (the Redis subscriber runs in the background from here on); `on_resync`, if given,
        is called after the subscriber was away (see the module docstring)."""
        if on_resync is not None:
            self.on_resync = on_resync

    async def close(self) -> None:
        """Drop every subscription and disconnect."""
        self.listeners.clear()

    async def _subscribe_channel(self, room_id: str) -> None:
        raise NotImplementedError

    async def _unsubscribe_channel(self, room_id: str) -> None:
        raise NotImplementedError


def encode(origin: str, change: dict[str, Any]) -> bytes:
    """The wire envelope of a change."""
    packed: bytes = msgpack.packb({"o": origin, "c": change}, use_bin_type=True)
    return packed


def own_prefix(origin: str) -> bytes:
    """How every envelope `origin` sends begins (`encode` packs the origin first), so that a process can
    drop its own publications, which its subscriber reads back, without decoding them."""
    prefix: bytes = b"\x82" + msgpack.packb("o") + msgpack.packb(origin, use_bin_type=True)
    return prefix


def decode(data: bytes) -> tuple[str, dict[str, Any]]:
    """(origin, change) of an envelope; ValueError if it is not one."""
    try:
        envelope = msgpack.unpackb(data, raw=False)
    except Exception as problem:
        raise ValueError("not a msgpack envelope") from problem
    if not isinstance(envelope, dict) or not isinstance(envelope.get("o"), str) \
            or not isinstance(envelope.get("c"), dict):
        raise ValueError("not a change envelope")
    return envelope["o"], envelope["c"]


class RedisFanout(Fanout):
    """Fan-out over Redis pub/sub: one subscriber connection per process, reconnected by itself."""

    def __init__(self, redis: Any, keys: Keys, process_id: str, deliver_own: bool = False,
                 on_resync: ResyncCallback | None = None, retry_delay: float = 0.2,
                 max_retry_delay: float = 2.0, primary_check_interval: float = 5.0) -> None:
        super().__init__(process_id, deliver_own, on_resync)
        self.redis = redis
        self.keys = keys
        self.retry_delay = retry_delay
        self.max_retry_delay = max_retry_delay
        self.primary_check_interval = primary_check_interval
        # A channel name is `<head><room id><tail>`: the room's id is what lies between.
        self._head, self._tail = keys.room_changes("\0").split("\0")
        self._pubsub: PubSub | None = None
        self._task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()
        self.reconnects = 0  # how many times the subscriber connected again after losing Redis
        self._own = own_prefix(process_id)
        self._publishes = lean_pipeline(redis, 2)  # one publisher loop: one in flight

    def _channel(self, room_id: str) -> str:
        return self.keys.room_changes(room_id)

    def _room_of(self, channel: str) -> str | None:
        if channel.startswith(self._head) and channel.endswith(self._tail):
            return channel[len(self._head):len(channel) - len(self._tail)]
        return None

    async def publish(self, room_id: str, change: dict[str, Any]) -> int:
        """PUBLISH the envelope on the room's channel."""
        return int(await self.redis.publish(self._channel(room_id), encode(self.process_id, change)))

    async def publish_many(self, changes: list[tuple[str, dict[str, Any]]]) -> list[int]:
        """One PUBLISH each, in order, sent in one pipeline (one round trip for a busy loop's changes);
        how many received each."""
        commands = [("PUBLISH", self._channel(room_id), encode(self.process_id, change))
                    for room_id, change in changes]
        replies = await self._publishes.run(commands)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return [int(count) for count in replies]

    async def start(self, timeout: float = 10.0, on_resync: ResyncCallback | None = None) -> None:
        """Start the subscriber and wait until it is connected the first time. TimeoutError if Redis
        does not answer within `timeout` (the subscriber keeps trying in the background)."""
        await super().start(timeout, on_resync)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="fanout-subscriber")
        await asyncio.wait_for(self.connected.wait(), timeout)

    async def close(self) -> None:
        """Stop the subscriber and close its connection."""
        await super().close()
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _subscribe_channel(self, room_id: str) -> None:
        if self._pubsub is not None and self.connected.is_set():
            with contextlib.suppress(Exception):  # lost connection: the reconnect subscribes it
                await self._pubsub.subscribe(self._channel(room_id))

    async def _unsubscribe_channel(self, room_id: str) -> None:
        if self._pubsub is not None and self.connected.is_set():
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(self._channel(room_id))

    async def _run(self) -> None:
        delay = self.retry_delay
        first = True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                # The process's own channel keeps the connection subscribed while it has no room.
                await pubsub.subscribe(self.keys.process_inbox(self.process_id),
                                       *(self._channel(room) for room in self.listeners))
                self._pubsub = pubsub
                self.connected.set()
                if not first:
                    self.reconnects += 1
                    await self._resync()
                first = False
                delay = self.retry_delay
                checked = asyncio.get_running_loop().time()
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        self._received(message)
                    now = asyncio.get_running_loop().time()
                    if now - checked >= self.primary_check_interval:
                        # On Sentinel: still subscribed on the primary? Publications go to the new one.
                        checked = now
                        if await on_old_primary(self.redis, pubsub.connection):
                            raise ConnectionError("the subscriber is not on the primary any more")
            except asyncio.CancelledError:
                raise
            except Exception as problem:
                if self.connected.is_set():
                    log.warning("fan-out subscriber lost Redis", extra={"fields": {
                        "error": type(problem).__name__}})
                self.connected.clear()
                self._pubsub = None
                await asyncio.sleep(delay)
                delay = min(self.max_retry_delay, delay * 2)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    def _received(self, message: dict[str, Any]) -> None:
        data = message["data"]
        if not self.deliver_own and isinstance(data, bytes) and data.startswith(self._own):
            return  # this process's own publication, read back: `deliver` would drop it after decoding
        channel = message["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else str(channel)
        room_id = self._room_of(channel)
        if room_id is None or not isinstance(data, bytes | str):
            return
        try:
            origin, change = decode(data.encode() if isinstance(data, str) else data)
        except ValueError:
            log.warning("fan-out: bad message", extra={"fields": {"channel": channel}})
            return
        self.deliver(room_id, origin, change)

    async def _resync(self) -> None:
        if self.on_resync is None or not self.listeners:
            return
        result = self.on_resync(self.rooms)
        if inspect.isawaitable(result):
            await result


class MemoryFanoutHub:
    """The in-process stand-in for Redis pub/sub: room -> the subscribed twins."""

    def __init__(self) -> None:
        self.subscribers: dict[str, set[MemoryFanout]] = {}


class MemoryFanout(Fanout):
    """Fan-out inside one process (or between twins sharing a `MemoryFanoutHub`). Messages are
    delivered on a later pass of the event loop, as with Redis, and encoded/decoded the same way (so
    a change that Redis could not carry fails here too)."""

    def __init__(self, process_id: str = "local", hub: MemoryFanoutHub | None = None,
                 deliver_own: bool = False, on_resync: ResyncCallback | None = None) -> None:
        super().__init__(process_id, deliver_own, on_resync)
        self.hub = hub if hub is not None else MemoryFanoutHub()

    crosses_processes = False

    def alone(self, room_id: str) -> bool:
        """Whether no other twin on the hub follows the room."""
        return self.hub.subscribers.get(room_id, set()) <= {self}

    async def publish(self, room_id: str, change: dict[str, Any]) -> int:
        """Deliver to every twin subscribed to the room (soon, not synchronously)."""
        data = encode(self.process_id, change)
        receivers = list(self.hub.subscribers.get(room_id, ()))
        loop = asyncio.get_running_loop()
        for receiver in receivers:
            origin, decoded = decode(data)
            loop.call_soon(receiver.deliver, room_id, origin, decoded)
        return len(receivers)

    async def close(self) -> None:
        """Leave every room."""
        for room in list(self.listeners):
            await self._unsubscribe_channel(room)
        await super().close()

    async def _subscribe_channel(self, room_id: str) -> None:
        self.hub.subscribers.setdefault(room_id, set()).add(self)

    async def _unsubscribe_channel(self, room_id: str) -> None:
        subscribers = self.hub.subscribers.get(room_id)
        if subscribers is not None:
            subscribers.discard(self)
            if not subscribers:
                del self.hub.subscribers[room_id]
