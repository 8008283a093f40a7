"""Sessions as deal-record JSON, in and out of the archive (`python -m server.archive export/import`).

The file is one JSON object: `{"format": "whist-archive", "version": 1, "sessions": [...]}`; each
session carries its settings, seats, balances and times, and `records`, its deal records exactly as
docs/deal-record.md describes them (each one replays on its own with `python -m server.rules replay`).
Importing replays every record (the archive's columns come from the replay), and writes each session
idempotently: importing a file twice writes it once."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .base import Archive
from .model import JSON, ArchivedSession, SeatEntry

FORMAT = "whist-archive"
VERSION = 1


def session_to_json(session: ArchivedSession) -> JSON:
    """A session in the exchange form."""
    return {
        "session_id": session.session_id, "room_id": session.room_id, "ruleset": session.ruleset,
        "house_rules": session.house_rules, "options": session.options,
        "seats": [seat.to_json() for seat in session.seats], "balances": list(session.balances),
        "started_at": session.started_at, "ended_at": session.ended_at, "complete": session.complete,
        "records": session.records(),
    }


def session_from_json(data: Mapping[str, Any]) -> ArchivedSession:
    """A session back from the exchange form; raises `ValueError` (or the record's own error) for one
    that does not hold together."""
    try:
        return ArchivedSession.build(
            session_id=str(data["session_id"]), room_id=str(data["room_id"]), ruleset=str(data["ruleset"]),
            house_rules=data.get("house_rules") or {}, options=data.get("options") or {},
            seats=[SeatEntry.from_json(seat) for seat in data["seats"]], balances=data["balances"],
            started_at=float(data["started_at"]), ended_at=float(data["ended_at"]), records=data["records"],
            complete=bool(data.get("complete", True)))
    except (KeyError, TypeError) as error:
        raise ValueError(f"not an archived session: {error!r}") from None


def document(sessions: Iterable[ArchivedSession]) -> JSON:
    """The file's content for these sessions."""
    return {"format": FORMAT, "version": VERSION, "sessions": [session_to_json(s) for s in sessions]}


def sessions_in(data: Any) -> list[ArchivedSession]:
    """The sessions of a file's content, oldest end first (the order ratings are applied in)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} file")
    if data.get("version") != VERSION:
        raise ValueError(f"unknown {FORMAT} version {data.get('version')!r}")
    sessions = [session_from_json(item) for item in data.get("sessions", [])]
    return sorted(sessions, key=lambda session: (session.ended_at, session.session_id))


async def export_room(archive: Archive, room_id: str) -> JSON:
    """Every archived session of a room."""
    return document(await archive.room_sessions(room_id))


async def export_all(archive: Archive) -> JSON:
    """Every archived session."""
    found = [await archive.read_session(session_id) for session_id in await archive.session_ids()]
    return document(session for session in found if session is not None)


async def import_sessions(archive: Archive, data: Any) -> tuple[int, int]:
    """Write a file's sessions: (written now, already there)."""
    written = already = 0
    for session in sessions_in(data):
        if await archive.write_session(session):
            written += 1
        else:
            already += 1
    return written, already
