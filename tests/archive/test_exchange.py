"""Export and import as deal-record JSON (`python -m server.archive export/import`), across adapters."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from archive_sessions import bots, finished, humans

from server.archive import Archive, open_archive
from server.archive.exchange import document, export_all, export_room, import_sessions

ROOT = Path(__file__).resolve().parents[2]


def archive_command(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server.archive", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
async def other_url(archive_url: str, tmp_path: Path, postgres_database: Callable[[], Awaitable[str]]) -> str:
    """An empty archive of the other adapter (SQLite for PostgreSQL and the other way round)."""
    if archive_url.startswith("sqlite"):
        return await postgres_database()
    return f"sqlite:///{tmp_path / 'other.sqlite3'}"


async def test_a_room_exported_and_imported_elsewhere_is_the_same(archive: Archive, other_url: str) -> None:
    sessions = [finished("s-1", humans("ann", "bob") + bots("expert", "basic"), room_id="room", seed=1),
                finished("s-2", humans("ann", "bob") + bots("expert", "basic"), room_id="room", seed=2,
                         started_at=5000, ruleset="belge-club")]
    for session in sessions:
        await archive.write_session(session)
    await archive.write_session(finished("elsewhere", humans("cy", "di", "ed", "fi"), ruleset="couleur"))
    data = json.loads(json.dumps(await export_room(archive, "room")))
    assert [len(s["records"]) for s in data["sessions"]] == [len(s.deals) for s in sessions]
    other = await open_archive(other_url)
    try:
        assert await import_sessions(other, data) == (2, 0)
        assert await import_sessions(other, data) == (0, 2)
        assert await other.room_sessions("room") == sessions
        assert await other.leaderboard("solo-whist") == await archive.leaderboard("solo-whist")
        assert await other.read_session("elsewhere") is None
    finally:
        await other.close()


async def test_everything_exports_at_once(archive: Archive) -> None:
    for n in range(3):
        await archive.write_session(finished(f"room-{n}", humans("ann", "bob", "cy", "di"), seed=n))
    data = await export_all(archive)
    assert [s["session_id"] for s in data["sessions"]] == ["room-0", "room-1", "room-2"]


def test_the_commands_export_a_room_and_import_it_once(archive_url: str, other_url: str,
                                                       tmp_path: Path) -> None:
    seed = tmp_path / "seed.json"

    async def write() -> None:
        archive = await open_archive(archive_url)
        try:
            await archive.write_session(finished("room-1", humans("ann", "bob") + bots("expert", "basic")))
        finally:
            await archive.close()

    asyncio.run(write())
    exported = tmp_path / "room-1.json"
    done = archive_command("export", "--url", archive_url, "--room", "room-1", "--out", str(exported))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"sessions": 1, "out": str(exported)}
    data = json.loads(exported.read_text())
    # Every record in the file is a deal record the replay command reads on its own.
    seed.write_text(json.dumps(data["sessions"][0]["records"][-1]))
    replayed = subprocess.run([sys.executable, "-m", "server.rules", "replay", str(seed)], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    assert replayed.returncode == 0 and json.loads(replayed.stdout)["status"] == "complete"
    first = archive_command("import", "--url", other_url, str(exported))
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {"written": 1, "already_archived": 0}
    again = archive_command("import", "--url", other_url, "-", stdin=exported.read_text())
    assert json.loads(again.stdout) == {"written": 0, "already_archived": 1}
    back = archive_command("export", "--url", other_url, "--room", "room-1")
    assert json.loads(back.stdout) == data


def test_a_tampered_file_is_refused_whole(archive_url: str, tmp_path: Path) -> None:
    good = finished("good", humans("ann", "bob", "cy", "di"), seed=1)
    bad = finished("bad", humans("ann", "bob", "cy", "di"), seed=2)
    data = document([good, bad])
    record = data["sessions"][1]["records"][0]
    # Two hands swapped: not what the seed deals.
    record["hands"] = [record["hands"][1], record["hands"][0], *record["hands"][2:]]
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    done = archive_command("import", "--url", archive_url, str(path))
    assert done.returncode == 1 and "seed" in done.stderr
    listed = archive_command("export", "--url", archive_url, "--all")
    assert json.loads(listed.stdout)["sessions"] == []
    path.write_text('{"format": "something else"}')
    assert "not a whist-archive file" in archive_command("import", "--url", archive_url, str(path)).stderr


def test_exporting_from_a_missing_file_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "archive.sqlite3"
    done = archive_command("export", "--url", f"sqlite:///{missing}", "--all")
    assert done.returncode == 1 and "no archive" in done.stderr
    assert not missing.parent.exists()
