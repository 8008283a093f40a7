"""The daily challenge's leaderboard lines and how they rank (kept by the `Store`: see
`server/store/base.py`, the one storage port).

One line per daily game (room) and day: the player's name, the game score (balance + 1000), the number
of played deals and `reached_at`, the first moment the game reached that score. Lines rank by score,
highest first, then by `reached_at`, earliest first ("à score égal, le premier arrivé passe devant").
A game may come back to a score it had before: it keeps the first time it got there, so each line
carries the first time of every score the game has had (`firsts`, a handful of numbers).
"""

from __future__ import annotations

import calendar
import time
from dataclasses import dataclass
from typing import Any

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
