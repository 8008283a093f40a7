"""The durable archive of finished sessions: the port (`Archive`), its SQLite and PostgreSQL adapters,
the ratings, and the deal-record JSON exchange (`python -m server.archive`)."""

from __future__ import annotations

from pathlib import Path

from .base import Archive
from .model import (
    ArchivedSession,
    ContractStats,
    DealEntry,
    DealFigures,
    PlayedDeal,
    PlayedSession,
    PlayerHistory,
    Rating,
    SeatEntry,
    SessionFigures,
    player_hash,
)
from .ratings import MIN_RATED_DEALS
from .urls import default_url, is_postgres, sqlite_path
from .writer import ArchiveWriter, WriterStats


async def open_archive(url: str | None = None, *, upgrade: bool = True) -> Archive:
    """The archive at `url` (default: `default_url()`), its schema first brought to the newest
    revision unless `upgrade` is False."""
    url = url or default_url()
    path = sqlite_path(url)
    if path is None and not is_postgres(url):
        raise ValueError(f"unknown archive URL {url!r}: use sqlite:///PATH or postgresql://...")
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    if upgrade:
        from .schema import upgrade as upgrade_schema

        await upgrade_schema(url)
    if path is not None:
        from .sqlite import SqliteArchive

        return await SqliteArchive.connect(path)
    from .postgres import PostgresArchive

    return await PostgresArchive.connect(url)


__all__ = [
    "MIN_RATED_DEALS", "Archive", "ArchiveWriter", "ArchivedSession", "ContractStats", "DealEntry",
    "DealFigures", "PlayedDeal", "PlayedSession", "PlayerHistory", "Rating", "SeatEntry", "SessionFigures",
    "WriterStats", "default_url", "is_postgres", "open_archive", "player_hash",
]
