"""The schema's migrations (Alembic), from an empty database, on both adapters."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from archive_sessions import finished, humans

from server.archive import open_archive
from server.archive.schema import current_revision, head_revision, upgrade

ROOT = Path(__file__).resolve().parents[2]


async def test_an_empty_database_is_migrated_to_the_newest_revision_on_open(archive_url: str) -> None:
    assert await current_revision(archive_url) is None
    archive = await open_archive(archive_url)
    try:
        assert await current_revision(archive_url) == head_revision() == "0001"
        assert await archive.write_session(finished("room-1", humans("ann", "bob", "cy", "di")))
    finally:
        await archive.close()


async def test_an_unmigrated_database_cannot_be_written(archive_url: str) -> None:
    archive = await open_archive(archive_url, upgrade=False)
    try:
        with pytest.raises(Exception, match="sessions"):
            await archive.write_session(finished("room-1", humans("ann", "bob", "cy", "di")))
    finally:
        await archive.close()


async def test_upgrading_again_keeps_the_data(archive_url: str) -> None:
    archive = await open_archive(archive_url)
    session = finished("room-1", humans("ann", "bob", "cy", "di"))
    try:
        await archive.write_session(session)
        await upgrade(archive_url)
        assert await archive.read_session("room-1") == session
    finally:
        await archive.close()
    assert await current_revision(archive_url) == head_revision()


async def test_replicas_opening_an_empty_database_together_migrate_it_once(archive_url: str) -> None:
    await asyncio.gather(*(upgrade(archive_url) for _ in range(3)))
    assert await current_revision(archive_url) == head_revision()


def test_the_upgrade_command_migrates_from_empty_even_run_three_times_at_once(archive_url: str) -> None:
    command = [sys.executable, "-m", "server.archive", "upgrade", "--url", archive_url]
    runs = [subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(3)]
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        assert json.loads(out) == {"revision": head_revision()}
    shown = subprocess.run([sys.executable, "-m", "server.archive", "revision", "--url", archive_url],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert json.loads(shown.stdout) == {"revision": head_revision()}
