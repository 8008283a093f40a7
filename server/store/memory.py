"""The embedded in-memory store: the default when no Redis is configured. Same semantics as Redis."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable

from ..leaderboard import LeaderboardLine, rank_order
from .base import JSON, Store, StoredRoom, VersionConflictError


def _copy(value: JSON) -> JSON:
    # A JSON round trip, as with Redis: the caller never shares objects with the store.
    copied: JSON = json.loads(json.dumps(value))
    return copied


class MemoryStore(Store):
    """Rooms in process memory; lost when the process ends. A retained room (`retain`) is dropped once
    its expiry has passed, as Redis does: checked whenever the room is read or the rooms are listed.
    `clock`: seconds, monotonic (tests pass their own)."""

    kind = "memory"

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._expires: dict[str, float] = {}  # room id -> when its retention ends (by `clock`)
        self._unlisted: set[str] = set()  # retained rooms: out of `room_ids`
        self._archived: dict[str, int] = {}
        self._players: dict[str, dict[int, str]] = {}
        self._rooms: dict[str, tuple[int, str]] = {}
        self._logs: dict[str, list[str]] = {}
        self._lobby: dict[str, str] = {}
        self._secret: str | None = None
        self._days: dict[str, dict[str, LeaderboardLine]] = {}
        self._claims: set[tuple[str, str]] = set()
        self._deal_results: dict[tuple[str, str], dict[str, str]] = {}
        self._chats: dict[str, list[str]] = {}

    def _expire(self, room_id: str) -> None:
        """Forget the room if its retention has passed."""
        deadline = self._expires.get(room_id)
        if deadline is not None and deadline <= self._clock():
            del self._expires[room_id]
            self._rooms.pop(room_id, None)
            self._logs.pop(room_id, None)
            self._lobby.pop(room_id, None)
            self._archived.pop(room_id, None)
            self._players.pop(room_id, None)
            self._chats.pop(room_id, None)
            self._unlisted.discard(room_id)

    async def save(
        self, room_id: str, state: JSON, expected_version: int, log: list[JSON], lobby_entry: JSON | None
    ) -> int:
        """Compare-and-set; no await inside, so it is atomic on the event loop."""
        self._expire(room_id)
        found = self._rooms[room_id][0] if room_id in self._rooms else 0
        if found != expected_version:
            raise VersionConflictError(room_id, expected_version, found)
        version = found + 1
        self._rooms[room_id] = (version, json.dumps(state))
        self._logs.setdefault(room_id, []).extend(json.dumps(entry) for entry in log)
        if lobby_entry is None:
            self._lobby.pop(room_id, None)
        else:
            self._lobby[room_id] = json.dumps(lobby_entry)
        return version

    async def load(self, room_id: str) -> StoredRoom | None:
        """The stored room, as a fresh copy."""
        self._expire(room_id)
        if room_id not in self._rooms:
            return None
        version, text = self._rooms[room_id]
        return StoredRoom(version, json.loads(text))

    async def read_log(self, room_id: str) -> list[JSON]:
        """The room's event log."""
        self._expire(room_id)
        return [json.loads(entry) for entry in self._logs.get(room_id, [])]

    async def lobby(self) -> dict[str, JSON]:
        """The lobby index."""
        for room_id in list(self._lobby):
            self._expire(room_id)
        return {room_id: json.loads(text) for room_id, text in self._lobby.items()}

    async def room_ids(self) -> list[str]:
        """Every room id (a retained room's no longer)."""
        for room_id in list(self._expires):
            self._expire(room_id)
        return [room_id for room_id in self._rooms if room_id not in self._unlisted]

    async def daily_secret(self) -> str:
        """Created once per process."""
        if self._secret is None:
            self._secret = secrets.token_hex(32)
        return self._secret

    async def leaderboard_line(self, day: str, room_id: str) -> LeaderboardLine | None:
        """The game's line."""
        return self._days.get(day, {}).get(room_id)

    async def write_leaderboard_line(self, day: str, line: LeaderboardLine) -> None:
        """Set the game's line."""
        self._days.setdefault(day, {})[line.room_id] = line

    async def leaderboard_top(self, day: str, limit: int) -> tuple[list[LeaderboardLine], int]:
        """Sorted on demand."""
        lines = sorted(self._days.get(day, {}).values(), key=rank_order)
        return lines[:limit], len(lines)

    async def claim_daily_player(self, day: str, player: str) -> bool:
        """A set of (day, player); no await inside, so it is atomic on the event loop."""
        if (day, player) in self._claims:
            return False
        self._claims.add((day, player))
        return True

    async def write_deal_result(self, day: str, deal: str, room_id: str, result: JSON) -> None:
        """Set the game's result of that deal."""
        self._deal_results.setdefault((day, deal), {})[room_id] = json.dumps(result)

    async def deal_results(self, day: str, deal: str) -> dict[str, JSON]:
        """Fresh copies of the deal's results."""
        stored = self._deal_results.get((day, deal), {})
        return {room_id: json.loads(text) for room_id, text in stored.items()}

    async def append_chat(self, room_id: str, line: JSON, keep: int) -> bool:
        """Append, then drop the oldest lines beyond `keep` (nothing for a room not stored)."""
        self._expire(room_id)
        if room_id not in self._rooms:
            return False
        lines = self._chats.setdefault(room_id, [])
        lines.append(json.dumps(line))
        del lines[: max(0, len(lines) - keep)]
        return True

    async def chat_lines(self, room_id: str) -> list[JSON]:
        """Fresh copies of the kept lines."""
        self._expire(room_id)
        return [json.loads(text) for text in self._chats.get(room_id, [])]

    async def credit_seat(self, room_id: str, seat: int, player: str | None) -> bool:
        """Set or remove the seat's credit (nothing for a room not stored)."""
        self._expire(room_id)
        if room_id not in self._rooms:
            return False
        credits = self._players.setdefault(room_id, {})
        if player is None:
            credits.pop(seat, None)
        else:
            credits[seat] = player
        return True

    async def seat_credits(self, room_id: str) -> dict[int, str]:
        """A copy of the room's credits."""
        self._expire(room_id)
        return dict(self._players.get(room_id, {}))

    async def retain(self, room_id: str, session: int, seconds: float) -> bool:
        """Mark it archived, set its expiry, out of the rooms index and the lobby."""
        self._expire(room_id)
        if room_id not in self._rooms:
            return False
        self._archived[room_id] = session
        self._expires[room_id] = self._clock() + seconds
        self._unlisted.add(room_id)
        self._lobby.pop(room_id, None)
        return True

    async def archived(self, room_id: str) -> int | None:
        """The last archived session's number."""
        self._expire(room_id)
        return self._archived.get(room_id)

    async def persist(self, room_id: str) -> None:
        """No expiry; back in the rooms index."""
        self._expire(room_id)
        self._expires.pop(room_id, None)
        self._unlisted.discard(room_id)
