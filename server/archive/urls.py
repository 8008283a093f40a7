"""Archive URLs: `sqlite:///PATH` (a relative path; `sqlite:////abs/path` for an absolute one, as
SQLAlchemy spells it) and `postgresql://USER@HOST:PORT/DB` (`postgres://` too)."""

from __future__ import annotations

import os
from pathlib import Path

SQLITE = "sqlite:///"
POSTGRES = ("postgresql://", "postgres://")


def default_url() -> str:
    """The embedded default: `archive.sqlite3` in the data folder, `$WHIST_DATA_DIR` or else
    `$XDG_DATA_HOME/whist` (`~/.local/share/whist`)."""
    folder = os.environ.get("WHIST_DATA_DIR") or str(
        Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "whist")
    return SQLITE + str(Path(folder) / "archive.sqlite3")


def sqlite_path(url: str) -> str | None:
    """The file of a `sqlite:///` URL, None for another URL."""
    if not url.startswith(SQLITE):
        return None
    path = url[len(SQLITE):]
    if not path or path == ":memory:":
        raise ValueError("the archive needs a file: sqlite:///PATH (an in-memory database is not kept)")
    return path


def is_postgres(url: str) -> bool:
    """Whether `url` names a PostgreSQL database."""
    return url.startswith(POSTGRES)


def sqlalchemy_url(url: str) -> str:
    """The same database as SQLAlchemy names it with the archive's async drivers."""
    path = sqlite_path(url)
    if path is not None:
        return "sqlite+aiosqlite:///" + path
    if is_postgres(url):
        return "postgresql+asyncpg://" + url.split("://", 1)[1]
    raise ValueError(f"unknown archive URL {url!r}: use sqlite:///PATH or postgresql://...")
