"""Archive URLs (server/archive/urls.py): which database a URL names and how SQLAlchemy's async drivers
name it; the embedded default lives in the data folder."""

from __future__ import annotations

import pytest

from server.archive import urls


def test_a_sqlite_url_names_a_file_relative_or_absolute() -> None:
    assert urls.sqlite_path("sqlite:///data/archive.sqlite3") == "data/archive.sqlite3"
    assert urls.sqlite_path("sqlite:////var/lib/whist/a.db") == "/var/lib/whist/a.db"
    assert urls.sqlite_path("postgresql://u@h:5432/db") is None


@pytest.mark.parametrize("url", ["sqlite:///", "sqlite:///:memory:"])
def test_an_archive_is_never_in_memory(url: str) -> None:
    with pytest.raises(ValueError, match="needs a file"):
        urls.sqlite_path(url)


def test_both_spellings_of_postgres_are_postgres() -> None:
    assert urls.is_postgres("postgresql://u@h:5432/db") and urls.is_postgres("postgres://u@h/db")
    assert not urls.is_postgres("sqlite:///a.db") and not urls.is_postgres("mysql://u@h/db")


def test_the_sqlalchemy_urls_use_the_async_drivers() -> None:
    assert urls.sqlalchemy_url("sqlite:///a.db") == "sqlite+aiosqlite:///a.db"
    assert urls.sqlalchemy_url("postgres://u@h:5432/db") == "postgresql+asyncpg://u@h:5432/db"
    assert urls.sqlalchemy_url("postgresql://u@h/db") == "postgresql+asyncpg://u@h/db"
    with pytest.raises(ValueError, match="unknown archive URL"):
        urls.sqlalchemy_url("mysql://u@h/db")


def test_the_default_is_in_the_data_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WHIST_DATA_DIR", "/srv/whist")
    assert urls.default_url() == "sqlite:////srv/whist/archive.sqlite3"
    monkeypatch.delenv("WHIST_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", "/home/ann/.data")
    assert urls.default_url() == "sqlite:////home/ann/.data/whist/archive.sqlite3"
