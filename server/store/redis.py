"""The Redis store (redis.asyncio). Each write is one Lua script: compare the version, then set the
state, append to the log and update the lobby index, so no update is lost or applied twice. The writes
of many rooms made at the same moment travel together in one pipeline (one round trip). The scripts
are in `redis_scripts.py`.

On a Redis Cluster a script may touch one slot only: the saves go through `cluster_saves.ClusterSaves`
(the room's own slot first, the global indexes after it, only when they change)."""

from __future__ import annotations

import asyncio
import collections
import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import NoScriptError

from ..leaderboard import RANK_SCALE, LeaderboardLine, day_start, rank_order
from .base import JSON, NotReplicatedError, Store, StoredRoom, VersionConflictError
from .cluster_saves import ClusterSaves, index_room
from .connect import parse_redis_url, redis_client
from .connect import split_store_url as split_store_url  # callers of one Redis's plain URL
from .keys import Keys
from .redis_scripts import (
    PERSIST_SCRIPT,
    RETAIN_SCRIPT,
    ROOM_KEY_SCRIPT,
    SAVE_SCRIPT,
)
from .sharded import ClusterLeanPipeline, lean_pipeline

# The daily challenge's claims and per-deal results are kept this long (seconds): they matter on their
# day only, and a few days more let a player in a far time zone look back.
DAILY_KEYS_SECONDS = 4 * 86400
# Rooms whose last written state this process remembers (most actions, a card played, leave a room's
# stored state as it was: only its log grows, so the state is neither encoded nor sent again).
REMEMBERED_STATES = 20_000
# Save batches in flight at once (each on a connection of its own; one batch holds every save asked for
# during one pass of the event loop, so a few are plenty and the rest of the pool stays free).
SAVE_CONNECTIONS = 8

@dataclass(slots=True)
class _PendingSave:
    """One save waiting for the next pipeline: its keys, its script arguments, who waits."""

    keys: list[str]
    args: list[Any]
    future: asyncio.Future[list[int]]


class RedisStore(Store):
    """Rooms in Redis under one key prefix (see `keys.py`)."""

    kind = "redis"

    def __init__(self, url: str, prefix: str | None = None) -> None:
        address = parse_redis_url(url)
        self.url = url
        self.keys = Keys(prefix if prefix is not None else address.prefix)
        # After each batch of saves: WAIT for this many replicas (0: none), this long at most.
        self.wait_replicas, self.wait_ms = address.wait, address.wait_ms
        # A bounded pool that waits for a free connection (the default pool raises when it runs out,
        # which hundreds of busy tables do). Through sentinels: short socket timeouts, so that a
        # primary that vanished without closing its sockets is given up (and the next found).
        timeouts = {"socket_timeout": 5.0, "socket_connect_timeout": 2.0} \
            if address.sentinel or address.cluster else {}
        # (A `RedisCluster` on a Redis Cluster: it takes the same commands.)
        self.redis: Redis = redis_client(address, decode_responses=True, max_connections=64,
                                         pool_timeout=20, **timeouts)
        self._save_sha = hashlib.sha1(SAVE_SCRIPT.encode()).hexdigest()
        # The rarer scripts (EVALSHA, loaded again by redis-py after a NOSCRIPT).
        self._room_key_script = self.redis.register_script(ROOM_KEY_SCRIPT)
        self._retain_script = self.redis.register_script(RETAIN_SCRIPT)
        self._persist_script = self.redis.register_script(PERSIST_SCRIPT)
        self._saves = lean_pipeline(self.redis, SAVE_CONNECTIONS)
        # On a Redis Cluster (its own pipeline): the save touches the room's slot only, and the indexes
        # are written after it (`ClusterSaves`); on one Redis, None.
        self._cluster_saves = ClusterSaves(self._saves, self.keys, self.wait_replicas, self.wait_ms) \
            if isinstance(self._saves, ClusterLeanPipeline) else None
        # Saves asked for during one pass of the event loop go to Redis together, in one pipeline:
        # one write and one read for the batch instead of one round trip each. Each save is still its
        # own Lua script, atomic on its own (a room has at most one save in flight: its lock).
        self._pending: list[_PendingSave] = []
        self._batches: set[asyncio.Task[None]] = set()
        # room -> (version, state) of the last state this process wrote there: a save of the same state
        # on that version sends "" instead (the compare-and-set on the version proves it is stored).
        self._written: collections.OrderedDict[str, tuple[int, JSON]] = collections.OrderedDict()

    async def save(
        self, room_id: str, state: JSON, expected_version: int, log: list[JSON], lobby_entry: JSON | None
    ) -> int:
        """The versioned write (one Lua script, atomic in Redis)."""
        keys = [self.keys.room(room_id), self.keys.room_log(room_id)]
        if self._cluster_saves is None:
            keys += [self.keys.lobby, self.keys.rooms]
        remembered = self._written.pop(room_id, None)
        unchanged = remembered is not None and remembered[0] == expected_version and remembered[1] == state
        args: list[Any] = [expected_version, "" if unchanged else json.dumps(state, separators=(",", ":")),
                           room_id,
                           "" if lobby_entry is None else json.dumps(lobby_entry, separators=(",", ":"))]
        args.extend(json.dumps(entry, separators=(",", ":")) for entry in log)
        future: asyncio.Future[list[int]] = asyncio.get_running_loop().create_future()
        if not self._pending:
            asyncio.get_running_loop().call_soon(self._send_pending)
        self._pending.append(_PendingSave(keys, args, future))
        # A failure: nothing remembered, the next save sends the state.
        written, version, *replicas = await future
        if not written:
            raise VersionConflictError(room_id, expected_version, int(version))
        wanted = replicas[1] if len(replicas) > 1 else self.wait_replicas
        if replicas and replicas[0] < wanted:
            # The primary holds it, too few replicas do: not answered as done (nor remembered).
            raise NotReplicatedError(room_id, int(version), replicas[0], wanted)
        self._written[room_id] = (int(version), state)
        if len(self._written) > REMEMBERED_STATES:
            self._written.popitem(last=False)
        return int(version)

    def _send_pending(self) -> None:
        batch, self._pending = self._pending, []
        task = asyncio.get_running_loop().create_task(self._write_batch(batch))
        self._batches.add(task)
        task.add_done_callback(self._batches.discard)

    async def _write_batch(self, batch: list[_PendingSave]) -> None:
        """Run a batch of saves in one pipeline; each save's future gets its own answer (with
        `wait_replicas`, the replicas that confirmed the batch follow the script's reply)."""
        try:
            if self._cluster_saves is not None:
                results = await self._cluster_saves.run([(save.keys, save.args) for save in batch])
            else:
                results, replicas = await self._run_scripts(batch)
                missing = [save for save, result in zip(batch, results, strict=True)
                           if isinstance(result, NoScriptError)]
                if missing:
                    # Redis lost its script cache (restart, SCRIPT FLUSH): NOSCRIPT ran nothing, so load
                    # the script and run those saves again.
                    self._save_sha = str(await self.redis.script_load(SAVE_SCRIPT))
                    again, replicas_again = await self._run_scripts(missing)
                    retried = dict(zip(map(id, missing), again, strict=True))
                    results = [retried.get(id(save), result)
                               for save, result in zip(batch, results, strict=True)]
                    # Each WAIT covers the writes of its own connection (maybe not the same one): the
                    # saves of the batch are confirmed as far as the lesser of the two.
                    replicas = [min(*replicas, *replicas_again)] if replicas else []
                results = [result if isinstance(result, Exception) else [*result, *replicas]
                           for result in results]
        except Exception as failure:
            for save in batch:
                if not save.future.done():
                    save.future.set_exception(failure)
            return
        for save, result in zip(batch, results, strict=True):
            if save.future.done():
                continue  # the saver was cancelled
            if isinstance(result, Exception):
                save.future.set_exception(result)
            else:
                save.future.set_result(result)

    async def _run_scripts(self, batch: list[_PendingSave]) -> tuple[list[Any], list[int]]:
        """The batch's scripts, in one pipeline, and with `wait_replicas` a WAIT after them on the
        same connection: (each script's reply, [how many replicas hold every write of the batch], or
        [] without WAIT). A WAIT refused counts as no replica."""
        commands: list[tuple[Any, ...]] = [("EVALSHA", self._save_sha, len(save.keys), *save.keys, *save.args)
                                           for save in batch]
        if not self.wait_replicas:
            return await self._saves.run(commands), []
        commands.append(("WAIT", self.wait_replicas, self.wait_ms))
        replies = await self._saves.run(commands)
        waited = replies.pop()
        return replies, [0 if isinstance(waited, Exception) else int(waited)]

    async def load(self, room_id: str) -> StoredRoom | None:
        """The stored room."""
        found = await self.redis.hmget(self.keys.room(room_id), ["version", "state"])
        if found[0] is None or found[1] is None:
            return None
        return StoredRoom(int(found[0]), json.loads(found[1]))

    async def read_log(self, room_id: str) -> list[JSON]:
        """The room's event log."""
        entries = await self.redis.lrange(self.keys.room_log(room_id), 0, -1)
        return [json.loads(entry) for entry in entries]

    async def lobby(self) -> dict[str, JSON]:
        """The lobby index."""
        entries: dict[str, str] = await self.redis.hgetall(self.keys.lobby)  # type: ignore[assignment]
        return {room_id: json.loads(text) for room_id, text in entries.items()}

    async def room_ids(self) -> list[str]:
        """Every room id."""
        members: set[str] = await self.redis.smembers(self.keys.rooms)  # type: ignore[assignment]
        return sorted(members)

    async def daily_secret(self) -> str:
        """SET NX: the first process to ask creates it; every process on this Redis shares it."""
        key = self.keys.daily_secret
        await self.redis.set(key, secrets.token_hex(32), nx=True)
        secret = await self.redis.get(key)
        if secret is None:
            raise RuntimeError(f"the daily secret {key!r} vanished from Redis")
        return str(secret)

    async def leaderboard_line(self, day: str, room_id: str) -> LeaderboardLine | None:
        """The game's line (a hash of lines per day)."""
        text = await self.redis.hget(self.keys.leaderboard_lines(day), room_id)
        return LeaderboardLine.from_json(json.loads(text)) if text is not None else None

    async def write_leaderboard_line(self, day: str, line: LeaderboardLine) -> None:
        """The line and its rank key (a sorted set per day) in one MULTI (never one without the other)."""
        rank_key = line.score * RANK_SCALE - round((line.reached_at - day_start(day)) * 1000)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.keys.leaderboard_lines(day), line.room_id,
                      json.dumps(line.to_json(), separators=(",", ":")))
            pipe.zadd(self.keys.leaderboard(day), {line.room_id: rank_key})
            await pipe.execute()

    async def leaderboard_top(self, day: str, limit: int) -> tuple[list[LeaderboardLine], int]:
        """The best `limit` room ids from the sorted set, then their lines."""
        ranking = self.keys.leaderboard(day)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrevrange(ranking, 0, limit - 1)
            pipe.zcard(ranking)
            room_ids, total = await pipe.execute()
        if not room_ids:
            return [], int(total)
        texts = await self.redis.hmget(self.keys.leaderboard_lines(day), room_ids)
        lines = [LeaderboardLine.from_json(json.loads(text)) for text in texts if text is not None]
        # Equal rank keys (same score, same millisecond) come back in reverse member order: re-sort.
        return sorted(lines, key=rank_order), int(total)

    async def claim_daily_player(self, day: str, player: str) -> bool:
        """SET NX, kept for a few days (a claim matters only on its day)."""
        claimed = await self.redis.set(self.keys.daily_player(day, player), "1", nx=True,
                                       ex=DAILY_KEYS_SECONDS)
        return bool(claimed)

    async def write_deal_result(self, day: str, deal: str, room_id: str, result: JSON) -> None:
        """HSET in the deal's hash, which is kept for a few days."""
        key = self.keys.deal_results(day, deal)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, room_id, json.dumps(result, separators=(",", ":")))
            pipe.expire(key, DAILY_KEYS_SECONDS)
            await pipe.execute()

    async def deal_results(self, day: str, deal: str) -> dict[str, JSON]:
        """HGETALL of the deal's hash."""
        texts: dict[str, str] = await self.redis.hgetall(self.keys.deal_results(day, deal))  # type: ignore[assignment]
        return {room_id: json.loads(text) for room_id, text in texts.items()}

    async def append_chat(self, room_id: str, line: JSON, keep: int) -> bool:
        """RPUSH and LTRIM in one script: the list never holds more than `keep` lines, and keeps the
        room's expiry if it has one (nothing when the room hash is gone)."""
        return await self._room_key(room_id, self.keys.room_chat(room_id), "chat",
                                    json.dumps(line, separators=(",", ":")), keep)

    async def _room_key(self, room_id: str, key: str, *args: Any) -> bool:
        """One of the room's other keys written, with the room's expiry; False if the room is gone."""
        return bool(await self._room_key_script(keys=[self.keys.room(room_id), key], args=list(args)))

    async def credit_seat(self, room_id: str, seat: int, player: str | None) -> bool:
        """HSET (HDEL for nobody) in the room's players hash, which keeps the room's expiry (nothing
        when the room hash is gone)."""
        key = self.keys.room_players(room_id)
        if player is None:
            return await self._room_key(room_id, key, "hdel", seat)
        return await self._room_key(room_id, key, "hset", seat, player)

    async def seat_credits(self, room_id: str) -> dict[int, str]:
        """HGETALL of the room's players hash."""
        found: dict[str, str] = await self.redis.hgetall(self.keys.room_players(room_id))  # type: ignore[assignment]
        return {int(seat): player for seat, player in found.items()}

    async def retain(self, room_id: str, session: int, seconds: float) -> bool:
        """One script: `archived` in the room hash, PEXPIRE on each of the room's keys, out of the rooms
        set, the lobby and the owner book."""
        expiry = max(1, round(seconds * 1000))
        if self._cluster_saves is None:
            keys = [*self.keys.room_keys(room_id), self.keys.rooms, self.keys.lobby, self.keys.room_owners]
            return bool(await self._retain_script(keys=keys, args=[room_id, session, expiry]))
        # A cluster: the room's slot first, then the indexes (each its own slot).
        if not await self._retain_script(keys=self.keys.room_keys(room_id), args=[room_id, session, expiry]):
            return False
        self._cluster_saves.forget(room_id)
        await self.redis.srem(self.keys.rooms, room_id)
        await self.redis.hdel(self.keys.lobby, room_id)
        await self.redis.hdel(self.keys.lobby_versions, room_id)
        await self.redis.hdel(self.keys.room_owners, room_id)
        return True

    async def repair_index(self, room_id: str) -> None:
        """On a Redis Cluster, the room's index entries written again from its hash (`index_room`)."""
        if self._cluster_saves is not None:
            await index_room(self.redis, self.keys, room_id)

    async def archived(self, room_id: str) -> int | None:
        """HGET `archived` of the room hash."""
        found = await self.redis.hget(self.keys.room(room_id), "archived")
        return int(found) if found is not None else None

    async def persist(self, room_id: str) -> None:
        """One script: PERSIST on each of the room's keys, back in the rooms set."""
        if self._cluster_saves is None:
            await self._persist_script(keys=[*self.keys.room_keys(room_id), self.keys.rooms], args=[room_id])
        elif await self._persist_script(keys=self.keys.room_keys(room_id), args=[room_id]):
            await self.redis.sadd(self.keys.rooms, room_id)

    async def chat_lines(self, room_id: str) -> list[JSON]:
        """LRANGE of the room's chat list."""
        texts = await self.redis.lrange(self.keys.room_chat(room_id), 0, -1)
        return [json.loads(text) for text in texts]

    async def ping(self) -> bool:
        """Whether Redis answers."""
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False

    async def replicated(self, room_id: str | None = None) -> bool:
        """With `wait_replicas`: a write of its own (a probe key) and a WAIT behind it on one
        connection; the primary's replication stream is one line, so the replicas that confirm the
        probe hold everything written before it. True when saves wait for no replica. On a Redis
        Cluster the probe goes to `room_id`'s shard (each shard replicates on its own)."""
        if not self.wait_replicas:
            return True
        if self._cluster_saves is not None:
            probe = self.keys.room_probe(room_id) if room_id is not None else self.keys.replication_probe
            return await self._cluster_saves.replicated(probe)
        try:
            replies = await self._saves.run([("SET", self.keys.replication_probe, "1", "PX", 60_000),
                                             ("WAIT", self.wait_replicas, self.wait_ms)])
        except Exception:
            return False
        return not isinstance(replies[0], Exception) and isinstance(replies[1], int) \
            and replies[1] >= self.wait_replicas

    async def old_key_names(self) -> bool:
        """A look at the keys an older server wrote: the lobby, or a room of the rooms set, under its
        old name (`<prefix>lobby`, `<prefix>room:<id>`) and not under its new one."""
        old = self.keys.prefix
        if await self.redis.exists(f"{old}lobby"):
            return True
        found = await self.redis.srandmember(self.keys.rooms)
        if found is None:
            return False
        room_id = found.decode() if isinstance(found, bytes) else str(found)
        return bool(await self.redis.exists(f"{old}room:{room_id}")) and \
            not await self.redis.exists(self.keys.room(room_id))

    async def delete_everything(self) -> int:
        """Delete every key under this store's prefix (never the whole database). For tests."""
        deleted = 0
        async for key in self.redis.scan_iter(match=self.keys.pattern(), count=500):
            deleted += int(await self.redis.delete(key))
        return deleted

    async def close(self) -> None:
        """Finish the saves under way, then close the connection pool."""
        if self._pending:
            self._send_pending()
        await asyncio.gather(*self._batches, return_exceptions=True)
        await self.redis.aclose()
        if self._cluster_saves is None:  # a cluster's client closes its nodes' connections itself
            await self.redis.connection_pool.disconnect()
