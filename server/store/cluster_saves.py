"""The save path of the Redis store on a Redis Cluster (`RedisStore` hands its batches here).

A script may touch one slot only, so each save touches the room's own keys (`{room:<id>}`) and keeps the
room's lobby line in the room hash; the global indexes (the `rooms` set, the `lobby` hash) are written
after the saves, only when they change, version-guarded (`LOBBY_INDEX_SCRIPT`) so that a late write
never replaces a newer line. Each node's share of a batch is followed on the same connection by `WAIT`
(for as many replicas as that node's primary has in step) and `ROLE`. See docs/scaling.md, "Redis
Cluster"."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from redis.exceptions import NoScriptError

from .keys import Keys
from .redis_scripts import LOBBY_INDEX_SCRIPT, SAVE_ROOM_SCRIPT
from .sharded import ClusterLeanPipeline

# room id -> (version, lobby JSON or None for "unchanged", new room): an index write owed after a save.
IndexWrite = tuple[int, str | None, bool]


def acknowledged(replica: Any) -> bool:
    """Whether a replica of `ROLE`'s list ([host, port, offset]) acknowledged some offset."""
    if not isinstance(replica, list) or len(replica) < 3:
        return False
    offset = replica[2].decode() if isinstance(replica[2], bytes) else str(replica[2])
    return offset.isdigit() and int(offset) > 0


class ClusterSaves:
    """Batches of room saves on a Redis Cluster, their replica confirmations and the index writes
    that follow them. Owns what it remembers between batches: index writes that failed (sent again with
    the next batch) and how many replicas each node's primary had attached."""

    def __init__(self, pipeline: ClusterLeanPipeline, keys: Keys, wait_replicas: int, wait_ms: int) -> None:
        self.pipeline = pipeline
        self.keys = keys
        self.wait_replicas, self.wait_ms = wait_replicas, wait_ms
        self._save_sha = hashlib.sha1(SAVE_ROOM_SCRIPT.encode()).hexdigest()
        self._index_sha = hashlib.sha1(LOBBY_INDEX_SCRIPT.encode()).hexdigest()
        self._unindexed: dict[str, IndexWrite] = {}
        self._attached: dict[str, int] = {}  # node name -> replicas its primary had attached at its last ROLE
        self._asked: dict[str, int] = {}  # node name -> the replicas its last WAIT asked for

    def forget(self, room_id: str) -> None:
        """Drop an index write still owed for `room_id` (the room has left the indexes)."""
        self._unindexed.pop(room_id, None)

    async def run(self, saves: Sequence[tuple[list[str], list[Any]]]) -> list[Any]:
        """Each node's share of the save scripts (keys, args) in one pipeline, with `WAIT` and `ROLE`
        after them on the same connection (with `wait_replicas`), then the index writes of the saves
        that changed an index. Each save's answer: an exception, or [written, version] (a conflict) or
        [written, version, replicas confirmed, replicas wanted]: `wait_replicas`, or fewer when its
        shard's primary has fewer replicas attached (ROLE)."""
        tail = self._wait_tail if self.wait_replicas else ()
        commands = [("EVALSHA", self._save_sha, len(keys), *keys, *args) for keys, args in saves]
        results, tails = await self.pipeline.run_with_tail(commands, tail)
        missing = [index for index, result in enumerate(results) if isinstance(result, NoScriptError)]
        if missing:
            # A node without the script (restarted, or a replica promoted): EVAL, on the saves' own
            # nodes only, runs it and caches it there (a SCRIPT LOAD to every primary would fail while
            # one is away).
            again, tails_again = await self.pipeline.run_with_tail(
                [("EVAL", SAVE_ROOM_SCRIPT, *commands[index][2:]) for index in missing], tail)
            for index, result, tail_replies in zip(missing, again, tails_again, strict=True):
                results[index], tails[index] = result, tail_replies
        answers: list[Any] = []
        index_writes: dict[str, IndexWrite] = dict(self._unindexed)
        for (_, args), result, tail_replies in zip(saves, results, tails, strict=True):
            if isinstance(result, Exception) or not result[0]:
                answers.append(result if isinstance(result, Exception) else list(result[:2]))
                continue
            written, version, changed, new = (int(value) for value in result)
            room_id = str(args[2])
            if changed or new:
                index_writes[room_id] = (version, str(args[3]) if changed else None, bool(new))
            answers.append([written, version, *self.confirmed(tail_replies)])
        if index_writes:
            await self._write_indexes(index_writes)
        return answers

    async def replicated(self, probe: str) -> bool:
        """Whether a write of `probe` (a key of the shard in question) reaches as many replicas as that
        shard's primary has in step: False when it cannot be written or confirmed."""
        try:
            replies, tails = await self.pipeline.run_with_tail([("SET", probe, "1", "PX", 60_000)],
                                                               self._wait_tail)
        except Exception:
            return False
        if isinstance(replies[0], Exception):
            return False
        confirmed, wanted = self.confirmed(tails[0])
        return confirmed >= wanted

    def _wait_tail(self, node: str) -> list[tuple[Any, ...]]:
        """What follows a node's share of a batch: `WAIT` for as many replicas as the node had attached
        at its last `ROLE` (at most `wait_replicas`: a WAIT for a replica that is not there would hold
        every save of the node for `wait_ms`), then `ROLE` again."""
        asked = self._asked[node] = self._attached.get(node, self.wait_replicas)
        return [("WAIT", asked, self.wait_ms), ("ROLE",)]

    def confirmed(self, tail: tuple[str, list[Any]]) -> list[int]:
        """[replicas that confirmed, replicas wanted] from a node's `WAIT` and `ROLE` answers ([] without
        WAIT): as many as the primary has attached (ROLE) and the WAIT asked for, at most
        `wait_replicas`."""
        if not self.wait_replicas:
            return []
        node, replies = tail
        waited, role = [*replies, None, None][:2]
        confirmed = 0 if not isinstance(waited, int) else waited
        if isinstance(role, list) and len(role) > 2 and isinstance(role[2], list):
            # A replica still in its first sync has acknowledged no offset yet: not counted until it has.
            in_step = sum(1 for replica in role[2] if acknowledged(replica))
            attached = min(self.wait_replicas, in_step)
            self._attached[node] = attached
        else:
            attached = self.wait_replicas
        # No more than the WAIT asked for: a replica that attached meanwhile is asked for next time.
        return [confirmed, min(attached, self._asked.get(node, self.wait_replicas))]

    async def _write_indexes(self, writes: dict[str, IndexWrite]) -> None:
        """The lobby index and the rooms set, after the saves (one pipeline per node). A write that
        fails is kept and sent again with the next batch: the save itself stands."""
        self._unindexed.clear()
        commands: list[tuple[Any, ...]] = []
        owners: list[str] = []
        for room_id, (version, entry, new) in writes.items():
            if new:
                commands.append(("SADD", self.keys.rooms, room_id))
                owners.append(room_id)
            if entry is not None:
                commands.append(("EVALSHA", self._index_sha, 2, self.keys.lobby,
                                 self.keys.lobby_versions, room_id, version, entry))
                owners.append(room_id)
        replies = await self.pipeline.run(commands)
        lost = [index for index, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        if lost:  # the index's node lost its script cache: EVAL there (as the saves above)
            again = await self.pipeline.run([("EVAL", LOBBY_INDEX_SCRIPT, *commands[index][2:])
                                             for index in lost])
            for index, reply in zip(lost, again, strict=True):
                replies[index] = reply
        for room_id, reply in zip(owners, replies, strict=True):
            if isinstance(reply, Exception):
                self._unindexed[room_id] = writes[room_id]


async def index_room(client: Any, keys: Keys, room_id: str) -> tuple[bool, bool] | None:
    """Write a cluster room's entries in the global indexes again from its own hash: the rooms set
    (unless the room is retained, with an expiry) and its lobby line (version-guarded, as the saves
    write it, so a newer line is never replaced). (In the rooms set, listed in the lobby); None when
    the store holds no such room. `client` decodes responses."""
    version, line = await client.hmget(keys.room(room_id), ["version", "lobby"])
    if version is None:
        return None
    indexed = int(await client.pttl(keys.room(room_id))) < 0  # no expiry: not retained after archiving
    if indexed:
        await client.sadd(keys.rooms, room_id)
    if line is not None:
        await client.eval(LOBBY_INDEX_SCRIPT, 2, keys.lobby, keys.lobby_versions, room_id, int(version), line)
    return indexed, bool(line)
