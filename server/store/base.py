"""The storage port: versioned room state, a per-room event log, chat and credited players, the lobby
index, the rooms' retention once archived, and the daily challenge's server secret, leaderboards,
players' claims of a day and per-deal results. The memory and
Redis stores implement all of it (and pass one contract suite, tests/store/test_store.py)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from ..leaderboard import LeaderboardLine, updated_line

JSON = dict[str, Any]


class VersionConflictError(Exception):
    """A versioned write found another version than the one it expected; nothing was written."""

    def __init__(self, room_id: str, expected: int, found: int) -> None:
        super().__init__(f"room {room_id}: expected version {expected}, found {found}")
        self.room_id = room_id
        self.expected = expected
        self.found = found


class NotReplicatedError(Exception):
    """A write the primary holds but fewer replicas than asked confirmed within the wait: it may be
    lost in a failover, so it is not answered as done (the room's copy must be read again)."""

    def __init__(self, room_id: str, version: int, replicas: int, wanted: int) -> None:
        super().__init__(f"room {room_id}: version {version} reached {replicas} of {wanted} replicas")
        self.room_id = room_id
        self.version = version
        self.replicas = replicas


@dataclass(frozen=True, slots=True)
class StoredRoom:
    """A room's state as last written, and its version (1 after creation, +1 per write)."""

    version: int
    state: JSON


class Store(ABC):
    """Where rooms live. Every write is a compare-and-set on the room's version."""

    kind: str = "abstract"

    @abstractmethod
    async def save(
        self, room_id: str, state: JSON, expected_version: int, log: list[JSON], lobby_entry: JSON | None
    ) -> int:
        """Write `state` if the stored version is `expected_version` (0: the room must not exist), append
        `log` to the event log and set (or, with None, remove) the room's lobby entry, all at once.
        Returns the new version; raises `VersionConflictError` and writes nothing otherwise."""

    @abstractmethod
    async def load(self, room_id: str) -> StoredRoom | None:
        """The room's state and version, or None if there is no such room."""

    @abstractmethod
    async def read_log(self, room_id: str) -> list[JSON]:
        """The room's event log, oldest first."""

    @abstractmethod
    async def lobby(self) -> dict[str, JSON]:
        """Room id -> lobby entry for every listed room that is not over."""

    @abstractmethod
    async def room_ids(self) -> list[str]:
        """The id of every stored room."""

    @abstractmethod
    async def daily_secret(self) -> str:
        """The daily challenge's server secret: created at random the first time, then always the same
        (every process on the same store shares it)."""

    @abstractmethod
    async def leaderboard_line(self, day: str, room_id: str) -> LeaderboardLine | None:
        """A game's line on a day's leaderboard, if it has one."""

    @abstractmethod
    async def write_leaderboard_line(self, day: str, line: LeaderboardLine) -> None:
        """Set (or replace) a game's line on a day's leaderboard."""

    @abstractmethod
    async def leaderboard_top(self, day: str, limit: int) -> tuple[list[LeaderboardLine], int]:
        """The first `limit` lines of a day, ranked, and the number of lines of that day."""

    @abstractmethod
    async def claim_daily_player(self, day: str, player: str) -> bool:
        """Claim `day` for a player (the hash of their player key): True for the first claim of that
        player that day (their counted game), False for every later one (practice). Atomic."""

    @abstractmethod
    async def write_deal_result(self, day: str, deal: str, room_id: str, result: JSON) -> None:
        """Set (or replace) one daily game's result of one deal of `day` (`deal`: the deal's key)."""

    @abstractmethod
    async def deal_results(self, day: str, deal: str) -> dict[str, JSON]:
        """Room id -> result of every daily game of `day` that has played that deal."""

    @abstractmethod
    async def append_chat(self, room_id: str, line: JSON, keep: int) -> bool:
        """Append one chat line to the room's chat and keep only its last `keep` lines, at once. False
        (nothing kept) when the store holds no such room: a room's keys never outlive it."""

    @abstractmethod
    async def chat_lines(self, room_id: str) -> list[JSON]:
        """The room's kept chat lines, oldest first (not part of the room's state or deal records)."""

    @abstractmethod
    async def credit_seat(self, room_id: str, seat: int, player: str | None) -> bool:
        """Credit a seat of a room to a player (a hashed player key), or to nobody (None). The credits
        are kept with the room (with its expiry, once it has one). False (nothing written) when the store
        holds no such room."""

    @abstractmethod
    async def seat_credits(self, room_id: str) -> dict[int, str]:
        """Seat -> hashed player key of every credited seat of the room."""

    @abstractmethod
    async def retain(self, room_id: str, session: int, seconds: float) -> bool:
        """Session `session` (0-based) of the room is in the archive: remember it (`archived`), give
        every key of the room an expiry of `seconds`, and take the room out of the rooms index
        (`room_ids`) and the lobby at once. False (nothing done) if the room is not stored."""

    @abstractmethod
    async def archived(self, room_id: str) -> int | None:
        """The number of the room's last archived session (None: none yet, or no such room)."""

    @abstractmethod
    async def persist(self, room_id: str) -> None:
        """The room plays again: its keys keep no expiry, and it is back in the rooms index."""

    async def record_leaderboard(self, day: str, room_id: str, name: str, score: int, deals: int,
                                 now: float) -> LeaderboardLine:
        """Update a game's line after one of its deals (one writer per room: the room's lock)."""
        line = updated_line(await self.leaderboard_line(day, room_id), room_id, name, score, deals, now)
        await self.write_leaderboard_line(day, line)
        return line

    async def ping(self) -> bool:
        """Whether the store answers."""
        return True

    async def old_key_names(self) -> bool:
        """Whether the store holds keys under the names of before the hash-tagged ones (a store to
        migrate first: server/store/migrate.py). Only Redis has key names."""
        return False

    async def replicated(self, room_id: str | None = None) -> bool:
        """Whether what the store holds now (of `room_id`'s shard, on a Redis Cluster) is on as many
        replicas as a save waits for (after a save whose answer was lost, before it is answered as
        done); True when saves wait for none."""
        return True

    async def repair_index(self, room_id: str) -> None:  # noqa: B027 (only a Redis Cluster owes index writes)
        """Write the room's entries in the global indexes (the rooms set, the lobby) again from the room
        itself, where a save writes them after the room and a process may have died in between (a Redis
        Cluster). Elsewhere the save writes them with the room: nothing to repair."""

    async def close(self) -> None:  # noqa: B027 (optional hook: only Redis holds connections)
        """Release connections."""
