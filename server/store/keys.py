"""Every Redis key the server uses, in one place. All keys start with the store's prefix."""

from __future__ import annotations

DEFAULT_PREFIX = "whist:"


class Keys:
    """Key names under one prefix (tests use a unique prefix per run)."""

    def __init__(self, prefix: str = DEFAULT_PREFIX) -> None:
        self.prefix = prefix

    def room(self, room_id: str) -> str:
        """Hash: `version` (int) and `state` (JSON) of one room."""
        return f"{self.prefix}room:{room_id}"

    def room_log(self, room_id: str) -> str:
        """List: the room's append-only event log, one JSON entry per item."""
        return f"{self.prefix}room:{room_id}:log"

    @property
    def lobby(self) -> str:
        """Hash: room id -> lobby entry (JSON) of every listed, unfinished room."""
        return f"{self.prefix}lobby"

    @property
    def rooms(self) -> str:
        """Set: the id of every room."""
        return f"{self.prefix}rooms"

    @property
    def daily_secret(self) -> str:
        """String: the daily challenge's server secret (created once, SET NX)."""
        return f"{self.prefix}daily:secret"

    def leaderboard(self, day: str) -> str:
        """Sorted set: daily room id -> rank key of that day's leaderboard (see server/leaderboard.py)."""
        return f"{self.prefix}leaderboard:{day}"

    def leaderboard_lines(self, day: str) -> str:
        """Hash: daily room id -> that game's leaderboard line (JSON)."""
        return f"{self.prefix}leaderboard:{day}:entries"

    def pattern(self) -> str:
        """A SCAN pattern matching every key under this prefix (used by tests to clean up)."""
        return f"{self.prefix}*"
