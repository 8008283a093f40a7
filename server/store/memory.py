"""The embedded in-memory store: the default when no Redis is configured. Same semantics as Redis."""

from __future__ import annotations

import json
import secrets

from ..leaderboard import LeaderboardLine, rank_order
from .base import JSON, Store, StoredRoom, VersionConflictError


def _copy(value: JSON) -> JSON:
    # A JSON round trip, as with Redis: the caller never shares objects with the store.
    copied: JSON = json.loads(json.dumps(value))
    return copied


class MemoryStore(Store):
    """Rooms in process memory; lost when the process ends."""

    kind = "memory"

    def __init__(self) -> None:
        self._rooms: dict[str, tuple[int, str]] = {}
        self._logs: dict[str, list[str]] = {}
        self._lobby: dict[str, str] = {}
        self._secret: str | None = None
        self._days: dict[str, dict[str, LeaderboardLine]] = {}
        self._claims: set[tuple[str, str]] = set()
        self._deal_results: dict[tuple[str, str], dict[str, str]] = {}
        self._chats: dict[str, list[str]] = {}

    async def save(
        self, room_id: str, state: JSON, expected_version: int, log: list[JSON], lobby_entry: JSON | None
    ) -> int:
        """Compare-and-set; no await inside, so it is atomic on the event loop."""
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
        if room_id not in self._rooms:
            return None
        version, text = self._rooms[room_id]
        return StoredRoom(version, json.loads(text))

    async def read_log(self, room_id: str) -> list[JSON]:
        """The room's event log."""
        return [json.loads(entry) for entry in self._logs.get(room_id, [])]

    async def lobby(self) -> dict[str, JSON]:
        """The lobby index."""
        return {room_id: json.loads(text) for room_id, text in self._lobby.items()}

    async def room_ids(self) -> list[str]:
        """Every room id."""
        return list(self._rooms)

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

    async def append_chat(self, room_id: str, line: JSON, keep: int) -> None:
        """Append, then drop the oldest lines beyond `keep`."""
        lines = self._chats.setdefault(room_id, [])
        lines.append(json.dumps(line))
        del lines[: max(0, len(lines) - keep)]

    async def chat_lines(self, room_id: str) -> list[JSON]:
        """Fresh copies of the kept lines."""
        return [json.loads(text) for text in self._chats.get(room_id, [])]
