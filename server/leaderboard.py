"""The daily challenge's leaderboard and server secret: an interface, an in-memory and a Redis version.

One line per daily game (room) and day: the player's name, the game score (balance + 1000), the number
of played deals and `reached_at`, the first moment the game reached that score. Lines rank by score,
highest first, then by `reached_at`, earliest first ("à score égal, le premier arrivé passe devant").
A game may come back to a score it had before: it keeps the first time it got there, so each line
carries the first time of every score the game has had (`firsts`, a handful of numbers).
"""

from __future__ import annotations

import calendar
import json
import secrets
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

from .store import MemoryStore, Store
from .store.keys import Keys

JSON = dict[str, Any]
# Redis ranks by one float: score * RANK_SCALE - milliseconds since the start of the day. Exact while
# |score| < 900000 and the game reaches its score within 115 days of the day's start.
RANK_SCALE = 10**10


@dataclass(frozen=True, slots=True)
class LeaderboardLine:
    """One daily game's line, as stored."""

    room_id: str
    name: str
    score: int
    deals: int
    reached_at: float
    firsts: dict[str, float]  # score (as text: a JSON key) -> first time the game reached it

    def to_json(self) -> JSON:
        """The stored form."""
        return {"room_id": self.room_id, "name": self.name, "score": self.score, "deals": self.deals,
                "reached_at": self.reached_at, "firsts": self.firsts}

    @classmethod
    def from_json(cls, data: JSON) -> LeaderboardLine:
        """Back from the stored form."""
        return cls(str(data["room_id"]), str(data["name"]), int(data["score"]), int(data["deals"]),
                   float(data["reached_at"]), {str(k): float(v) for k, v in data["firsts"].items()})

    def public(self, rank: int, mine: bool) -> JSON:
        """The line as the `leaderboard` answer shows it (no room id: the room is the player's)."""
        return {"rank": rank, "name": self.name, "score": self.score, "deals": self.deals,
                "reached_at": self.reached_at, "mine": mine}


def updated_line(previous: LeaderboardLine | None, room_id: str, name: str, score: int, deals: int,
                 now: float) -> LeaderboardLine:
    """The game's new line: its current score and deals, and the first time it ever had this score."""
    firsts = dict(previous.firsts) if previous is not None else {}
    reached_at = firsts.setdefault(str(score), now)
    return LeaderboardLine(room_id, previous.name if previous is not None else name, score, deals,
                           reached_at, firsts)


def rank_order(line: LeaderboardLine) -> tuple[int, float, str]:
    """The sort key: higher score first, then whoever got there first (then the room id, for a
    stable order)."""
    return (-line.score, line.reached_at, line.room_id)


def day_start(day: str) -> float:
    """Midnight UTC at the start of `day` (YYYY-MM-DD), as Unix time."""
    return float(calendar.timegm(time.strptime(day, "%Y-%m-%d")))


class Leaderboard(ABC):
    """Where the daily challenge keeps its server secret and its leaderboards."""

    @abstractmethod
    async def server_secret(self) -> str:
        """The daily challenge's server secret: created at random the first time, then always the same."""

    @abstractmethod
    async def line(self, day: str, room_id: str) -> LeaderboardLine | None:
        """A game's line on a day's leaderboard, if it has one."""

    @abstractmethod
    async def write(self, day: str, line: LeaderboardLine) -> None:
        """Set (or replace) a game's line on a day's leaderboard."""

    @abstractmethod
    async def top(self, day: str, limit: int) -> tuple[list[LeaderboardLine], int]:
        """The first `limit` lines of a day, ranked, and the number of lines of that day."""

    async def record(self, day: str, room_id: str, name: str, score: int, deals: int,
                     now: float) -> LeaderboardLine:
        """Update a game's line after one of its deals (one writer per room: the room's lock)."""
        line = updated_line(await self.line(day, room_id), room_id, name, score, deals, now)
        await self.write(day, line)
        return line


class MemoryLeaderboard(Leaderboard):
    """In process memory (with the memory store): lost when the process ends."""

    def __init__(self) -> None:
        self._secret: str | None = None
        self._days: dict[str, dict[str, LeaderboardLine]] = {}

    async def server_secret(self) -> str:
        """Created once per process."""
        if self._secret is None:
            self._secret = secrets.token_hex(32)
        return self._secret

    async def line(self, day: str, room_id: str) -> LeaderboardLine | None:
        """The game's line."""
        return self._days.get(day, {}).get(room_id)

    async def write(self, day: str, line: LeaderboardLine) -> None:
        """Set the game's line."""
        self._days.setdefault(day, {})[line.room_id] = line

    async def top(self, day: str, limit: int) -> tuple[list[LeaderboardLine], int]:
        """Sorted on demand."""
        lines = sorted(self._days.get(day, {}).values(), key=rank_order)
        return lines[:limit], len(lines)


class RedisLeaderboard(Leaderboard):
    """In Redis, under the store's prefix: a sorted set for the ranking, a hash for the lines."""

    def __init__(self, redis: Redis, keys: Keys) -> None:
        self.redis = redis
        self.keys = keys

    async def server_secret(self) -> str:
        """SET NX: the first process to ask creates it; every process on this Redis shares it."""
        key = self.keys.daily_secret
        await self.redis.set(key, secrets.token_hex(32), nx=True)
        secret = await self.redis.get(key)
        if secret is None:
            raise RuntimeError(f"the daily secret {key!r} vanished from Redis")
        return str(secret)

    async def line(self, day: str, room_id: str) -> LeaderboardLine | None:
        """The game's line."""
        text = await self.redis.hget(self.keys.leaderboard_lines(day), room_id)
        return LeaderboardLine.from_json(json.loads(text)) if text is not None else None

    async def write(self, day: str, line: LeaderboardLine) -> None:
        """The line and its rank key in one MULTI (never one without the other)."""
        rank_key = line.score * RANK_SCALE - round((line.reached_at - day_start(day)) * 1000)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.keys.leaderboard_lines(day), line.room_id,
                      json.dumps(line.to_json(), separators=(",", ":")))
            pipe.zadd(self.keys.leaderboard(day), {line.room_id: rank_key})
            await pipe.execute()

    async def top(self, day: str, limit: int) -> tuple[list[LeaderboardLine], int]:
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


def leaderboard_for(store: Store) -> Leaderboard:
    """The leaderboard that lives where the rooms live."""
    if isinstance(store, MemoryStore):
        return MemoryLeaderboard()
    from .store.redis import RedisStore

    if isinstance(store, RedisStore):
        return RedisLeaderboard(store.redis, store.keys)
    raise TypeError(f"no leaderboard for a {type(store).__name__}")
