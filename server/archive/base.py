"""The archive port: where finished sessions go once they leave the live store, with their deals, the
players' histories and the ratings. The SQLite and PostgreSQL adapters implement it and pass one
contract suite (tests/archive/test_contract.py)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from .model import JSON, ArchivedSession, PlayedDeal, PlayerHistory, Rating, SessionFigures


class Archive(ABC):
    """A durable archive. Every method is safe to call from several processes at once."""

    kind: str = "abstract"

    @abstractmethod
    async def write_session(self, session: ArchivedSession) -> bool:
        """Archive a finished session with its deals, and update the ratings of its seats if it is
        rated (server/archive/ratings.py), all in one transaction. Idempotent by session id: True if
        this call wrote it, False if it was already there (then nothing changes, ratings included).
        Two concurrent writers of one session write it once."""

    @abstractmethod
    async def read_session(self, session_id: str) -> ArchivedSession | None:
        """The session as written, or None."""

    @abstractmethod
    async def session_figures(self, session_ids: Sequence[str]) -> dict[str, SessionFigures]:
        """The figures of these sessions (those archived), without their deal records: a page of a
        player's history in a few queries, whatever its length."""

    @abstractmethod
    async def room_sessions(self, room_id: str) -> list[ArchivedSession]:
        """Every archived session of a room, oldest first."""

    async def room_records(self, room_id: str) -> list[JSON]:
        """The deal records of a room, in the order they were played (what `get_records` answers)."""
        return [record for session in await self.room_sessions(room_id) for record in session.records()]

    @abstractmethod
    async def deal_record(self, session_id: str, number: int) -> JSON | None:
        """One deal's record (a deal's link: session and 0-based number), or None."""

    @abstractmethod
    async def player_history(self, player: str, limit: int = 50) -> PlayerHistory:
        """A player's (hashed key's) last `limit` sessions, statistics over all of them, and ratings."""

    @abstractmethod
    async def player_deals(self, player: str, limit: int = 200) -> list[PlayedDeal]:
        """A player's last `limit` deals, newest first."""

    @abstractmethod
    async def rating(self, ruleset: str, kind: str, ident: str) -> Rating | None:
        """One entity's rating in a ruleset (`kind` "player" with a hashed key, or "bot" with a level)."""

    @abstractmethod
    async def leaderboard(self, ruleset: str, limit: int = 50, humans_only: bool = False) -> list[Rating]:
        """The all-time board of a ruleset: by ordinal (mu - 3 sigma), highest first."""

    @abstractmethod
    async def session_ids(self) -> list[str]:
        """Every archived session id (for export)."""

    async def ping(self) -> bool:
        """Whether the archive answers."""
        return True

    async def close(self) -> None:  # noqa: B027 (optional hook)
        """Release connections."""
