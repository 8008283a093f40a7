"""What a page of a player's history (`GET /api/me`) costs the archive: the sessions' figures read in
four queries (`Archive.session_figures`, what the API does) beside each session read whole with its deal
records (`Archive.read_session` per session, what it did before), alternately in one process, on the
same archive. Both answers are checked equal.

    python -m bench.history_read --sessions 50 --deals 16 [--postgres URL] [--rounds 7] [--json]

The sessions are played for real (seeded random legal actions) and archived with one player's key on
seat 0; a page asks for all of them, as `/api/me?limit=50` does. Prints the median milliseconds of a
page each way per archive and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from bench.helpers import random_session
from server.api import played_session
from server.archive import Archive, ArchivedSession, SeatEntry, open_archive, player_hash
from server.archive.model import SessionFigures

PLAYER = player_hash("bench-history-player-key")


def played(number: int, deals: int) -> ArchivedSession:
    """A couleur session of `deals` deals played with seeded random actions, the player on seat 0."""
    session = random_session("couleur", f"history-{number}", deals, number)
    seats = [SeatEntry("human", "Ann", PLAYER)] + [SeatEntry("bot", "heuristic bot", None, "heuristic")] * 3
    return ArchivedSession.build(
        session_id=f"h{number:04d}", room_id=f"h{number:04d}", ruleset="couleur", house_rules={},
        options={"deals": deals}, seats=seats, balances=list(session.balances), started_at=1000.0 + number,
        ended_at=1600.0 + number, records=[item["record"] for item in session.history])


def figures_of(session: ArchivedSession) -> SessionFigures:
    """A whole session's figures (what the old page made of each session it read)."""
    return SessionFigures(session.session_id, session.room_id, session.ruleset, session.seats,
                          session.balances, session.started_at, session.ended_at, session.complete,
                          session.deals)


async def page(archive: Archive, limit: int, whole: bool) -> list[dict[str, Any]]:
    """One page of the player's history as `/api/me` lists it, the sessions read whole or as figures."""
    history = await archive.player_history(PLAYER, limit)
    if whole:
        found = {}
        for entry in history.sessions:
            session = await archive.read_session(entry.session_id)
            if session is not None:
                found[entry.session_id] = figures_of(session)
    else:
        found = await archive.session_figures([entry.session_id for entry in history.sessions])
    return [played_session(entry, found[entry.session_id]) for entry in history.sessions]


async def measure(url: str, sessions: list[ArchivedSession], rounds: int) -> dict[str, Any]:
    """The median page time each way on the archive at `url` (written first)."""
    archive = await open_archive(url)
    try:
        for session in sessions:
            await archive.write_session(session)
        times: dict[str, list[float]] = {"whole": [], "figures": []}
        answers: dict[str, list[dict[str, Any]]] = {}
        for index in range(rounds):
            order = ("whole", "figures") if index % 2 == 0 else ("figures", "whole")
            for way in order:
                start = time.perf_counter()
                answers[way] = await page(archive, len(sessions), way == "whole")
                times[way].append(time.perf_counter() - start)
        if answers["whole"] != answers["figures"]:
            raise AssertionError("the two ways answer different pages")
        whole, figures = (1000 * statistics.median(times[way]) for way in ("whole", "figures"))
        return {"archive": archive.kind, "sessions": len(answers["figures"]), "whole_ms": whole,
                "figures_ms": figures, "ratio": whole / max(figures, 1e-9)}
    finally:
        await archive.close()


async def run(count: int, deals: int, postgres: str | None, rounds: int) -> list[dict[str, Any]]:
    """Each archive's row: SQLite in a temporary file, then PostgreSQL in a throwaway database."""
    sessions = [played(number, deals) for number in range(count)]
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        rows.append(await measure(f"sqlite:///{Path(directory) / 'history.sqlite3'}", sessions, rounds))
    if postgres:
        import asyncpg

        name = f"whist_bench_{uuid.uuid4().hex[:10]}"
        admin = await asyncpg.connect(postgres)
        try:
            await admin.execute(f'CREATE DATABASE "{name}"')
            try:
                rows.append(await measure(postgres.rsplit("/", 1)[0] + "/" + name, sessions, rounds))
            finally:
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()
    return rows


def main() -> None:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--deals", type=int, default=16)
    parser.add_argument("--postgres", default=None, metavar="URL", help="also on PostgreSQL (admin URL)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = asyncio.run(run(args.sessions, args.deals, args.postgres, args.rounds))
    if args.json:
        json.dump(rows, sys.stdout)
        print()
        return
    for row in rows:
        print(f"{row['archive']:>8}: a page of {row['sessions']} sessions of {args.deals} deals: read whole "
              f"{row['whole_ms']:.1f} ms, as figures {row['figures_ms']:.1f} ms (x{row['ratio']:.1f})")


if __name__ == "__main__":
    main()
