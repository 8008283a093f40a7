"""Finished sessions to archive, played for real: a seeded random legal action at every turn."""

from __future__ import annotations

import copy
import functools

from bench.helpers import random_session
from server.archive import ArchivedSession, SeatEntry, player_hash


def played_records(ruleset: str, deals: int, seed: int
                   ) -> tuple[list[dict[str, object]], tuple[int, int, int, int]]:
    """The deal records and final balances of a session of `deals` played deals."""
    records, balances = _played(ruleset, deals, seed)
    return copy.deepcopy(records), balances


@functools.cache
def _played(ruleset: str, deals: int, seed: int) -> tuple[list[dict[str, object]], tuple[int, int, int, int]]:
    session = random_session(ruleset, f"secret-{seed}", deals, seed)
    b = session.balances
    return [dict(item["record"]) for item in session.history], (b[0], b[1], b[2], b[3])


def humans(*names: str) -> list[SeatEntry]:
    """Keyed human seats: each name's player key is `key-<name>`."""
    return [SeatEntry("human", name, player_hash(f"key-{name}")) for name in names]


def bots(*levels: str) -> list[SeatEntry]:
    """Bot seats of these levels."""
    return [SeatEntry("bot", f"{level} bot", None, level) for level in levels]


def finished(session_id: str, seats: list[SeatEntry], *, ruleset: str = "solo-whist", deals: int = 4,
             seed: int = 1, room_id: str | None = None, started_at: float = 1_000.0) -> ArchivedSession:
    """A finished session with these seats."""
    records, balances = played_records(ruleset, deals, seed)
    return ArchivedSession.build(
        session_id=session_id, room_id=room_id or session_id, ruleset=ruleset,
        house_rules=dict(records[0].get("house_rules") or {}), options={"name": "test table", "deals": deals},
        seats=seats, balances=balances, started_at=started_at, ended_at=started_at + 600, records=records)
