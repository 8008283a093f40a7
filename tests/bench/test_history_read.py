"""bench/history_read.py on SQLite and PostgreSQL: a page of a player's history read as figures is the
page read from whole sessions (the tool checks it), and it reports both ways."""

from __future__ import annotations

from pathlib import Path

from bench.history_read import figures_of, page, played, run
from server.archive import open_archive

POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"


async def test_both_ways_answer_the_same_page_on_both_archives() -> None:
    rows = await run(3, 2, POSTGRES, 1)
    assert [row["archive"] for row in rows] == ["sqlite", "postgresql"]
    assert all(row["sessions"] == 3 and row["whole_ms"] > 0 and row["figures_ms"] > 0 for row in rows)


async def test_a_page_lists_every_deal_of_each_session_newest_session_first(tmp_path: Path) -> None:
    archive = await open_archive(f"sqlite:///{tmp_path}/h.sqlite3")
    try:
        sessions = [played(number, 2) for number in range(2)]
        for session in sessions:
            await archive.write_session(session)
        listed = await page(archive, 10, whole=False)
        assert [line["session_id"] for line in listed] == ["h0001", "h0000"]
        assert [len(line["deals"]) for line in listed] == [len(figures_of(s).deals) for s in sessions[::-1]]
        assert listed == await page(archive, 10, whole=True)
    finally:
        await archive.close()
