"""bench/archive_cost.py on the test Redis (its own prefix) and an SQLite archive: a finished session's
keys carry the retention once archived, and none is left after it (the figures docs/benchmarks.md
records); the section it writes."""

from __future__ import annotations

from pathlib import Path

from bench.archive_cost import TITLE, live_side, markdown, write_cost


async def test_a_finished_session_leaves_nothing_in_redis_after_the_retention(
        redis_url: str, redis_cleanup: str, tmp_path: Path) -> None:
    live, tables = await live_side(redis_url, 2, 1, 0.5, f"sqlite:///{tmp_path / 'a.sqlite3'}",
                                   prefix=redis_cleanup)
    assert live["archived_keys_per_session"] == 4 and live["archived_bytes_per_session"] > 0
    assert live["archived_ttl_ok"] is True
    assert (live["after_keys_per_session"], live["after_bytes_per_session"]) == (0, 0)
    assert live["after_in_rooms_set_or_owner_book"] == 0 and len(tables) == 2
    sqlite = await write_cost(f"sqlite:///{tmp_path / 'w.sqlite3'}", tables, 2)
    assert sqlite["writes"] == 2 and sqlite["median_ms"] > 0 and sqlite["deals_per_session"] >= 1
    assert sqlite["rated"] == 0, "one-deal sessions are too short to be rated"
    section = markdown({"redis": live, "sqlite": sqlite, "postgresql": sqlite}, "python -m bench.x", "up")
    assert section.startswith(TITLE + "\n") and "| after the retention (0.5 s here) | 0 | 0 |" in section
