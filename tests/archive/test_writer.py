"""The background writer: live play never waits for the archive, and an archive that is down at first
gets every session once it answers (real refusals: a PostgreSQL port nobody listens on)."""

from __future__ import annotations

import asyncio

from archive_sessions import bots, finished, humans

from server.archive import Archive, ArchivedSession, open_archive
from server.archive.writer import ArchiveWriter

NOBODY = "postgresql://postgres@127.0.0.1:1/none"


async def test_sessions_submitted_while_the_archive_is_down_are_written_once_it_answers(
        archive_url: str) -> None:
    attempts = 0

    async def connect() -> Archive:
        nonlocal attempts
        attempts += 1
        return await open_archive(NOBODY if attempts <= 2 else archive_url)

    archived: list[tuple[str, bool]] = []

    async def done(session: ArchivedSession, written: bool) -> None:
        archived.append((session.session_id, written))

    first = finished("room-1", humans("ann", "bob") + bots("expert", "basic"), seed=1)
    second = finished("room-2", humans("ann", "bob") + bots("expert", "basic"), seed=2)
    writer = ArchiveWriter(connect, first_delay=0.01, max_delay=0.05)
    seen: list[str] = []
    writer.observe(lambda result, seconds: seen.append(result) if seconds >= 0 else None)
    writer.start()
    try:
        for session in (first, second, first):
            writer.submit(session, done)
        await asyncio.wait_for(writer.drain(), 60)
        stats = writer.stats()
        assert (stats.written, stats.already, stats.pending, stats.healthy) == (2, 1, 0, True)
        assert stats.failures >= 2 and stats.last_latency is not None
        assert sorted(archived) == [("room-1", False), ("room-1", True), ("room-2", True)]
        assert (seen.count("written"), seen.count("already")) == (2, 1) and seen.count("failed") >= 2
    finally:
        await writer.stop()
    reader = await open_archive(archive_url)
    try:
        assert await reader.session_ids() == ["room-1", "room-2"]
        rating = await reader.rating("solo-whist", "bot", "expert")
        assert rating is not None and rating.sessions == 2
    finally:
        await reader.close()


async def test_while_the_archive_is_down_the_writer_says_so_and_keeps_the_session() -> None:
    async def connect() -> Archive:
        return await open_archive(NOBODY)

    writer = ArchiveWriter(connect, first_delay=0.01, max_delay=0.05)
    writer.start()
    try:
        writer.submit(finished("room-1", humans("ann", "bob", "cy", "di")))
        for _ in range(500):
            if writer.stats().failures >= 3:
                break
            await asyncio.sleep(0.01)
        stats = writer.stats()
        assert stats.failures >= 3 and stats.pending == 1 and not stats.healthy
        assert stats.last_error is not None and stats.written == 0
    finally:
        await writer.stop()
    assert writer.stats().pending == 1
