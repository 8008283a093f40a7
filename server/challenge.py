"""The daily challenge: every player of a UTC day gets the same `couleur` deals against the same bots.

The session secret of a day's games is HMAC-SHA256(server daily secret, "daily:couleur:<day>"): the same
for every game of the day, a different one the next day, and not computable from the public shuffle
algorithm without the server secret. Deal seeds and the first dealer (the session's cut) follow from
it; the bots are deterministic (their seed is the deal's seed, the seat and the decision's position in
the deal: see `server/table/play.py`, `decision_seed`), so equal play gives equal results.

After each deal of a daily game with at least `MIN_DEALS` played deals, the game's line on the day's
leaderboard is updated (the `stored` hook of a room listener: after the room's change is stored, before
anyone hears of it).
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import logging
import os
import time
import weakref
from collections.abc import Callable
from typing import Any

from .live import CommittedChange, LiveRoom, Member, RoomListener, Tables
from .protocol import CreateRoom, ProtocolError, SessionLength
from .store import Store
from .table import Daily
from .table.seating import default_bot

log = logging.getLogger("whist.daily")

JSON = dict[str, Any]
DAILY_RULESET = "couleur"
DAILY_SEAT = 0  # the human's seat; the bots hold 1-3
MIN_DEALS = 2  # "il n'entre au classement qu'après deux donnes au moins"
SCORE_OFFSET = 1000  # "ton total, augmenté de 1 000"
SECRET_ENV = "WHIST_DAILY_SECRET"


def utc_day(now: float) -> str:
    """The UTC date (YYYY-MM-DD) at Unix time `now`: the challenge changes at midnight UTC."""
    return datetime.datetime.fromtimestamp(now, datetime.UTC).strftime("%Y-%m-%d")


def daily_session_secret(server_secret: str, day: str, ruleset: str = DAILY_RULESET) -> str:
    """The session secret of every daily game of `day`."""
    message = f"daily:{ruleset}:{day}".encode()
    return hmac.new(server_secret.encode(), message, hashlib.sha256).hexdigest()


def game_score(balance: int) -> int:
    """The game score: the player's total + 1000, so that it stays above zero in practice."""
    return balance + SCORE_OFFSET


def check_day(day: str) -> str:
    """A YYYY-MM-DD date, or `invalid_message`."""
    try:
        parsed = datetime.date.fromisoformat(day)
    except ValueError:
        parsed = None
    if parsed is None or parsed.isoformat() != day:
        raise ProtocolError("invalid_message", f"day {day!r} is not a date written YYYY-MM-DD")
    return day


class DailyChallenge(RoomListener):
    """Starts daily games and keeps their leaderboard lines; one per server, on the server's store."""

    def __init__(self, tables: Tables, store: Store, secret: str | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.tables = tables
        self.store = store
        self._secret = secret or os.environ.get(SECRET_ENV) or None
        self.clock = clock
        # The deal (0-based, thrown-in deals included) last written per live room: a room's other
        # changes (ready, joins, ...) then cost one lookup. Forgotten with the room object.
        self._recorded: weakref.WeakKeyDictionary[LiveRoom, int] = weakref.WeakKeyDictionary()

    async def server_secret(self) -> str:
        """The configured secret, else the store's (created once)."""
        if self._secret is None:
            self._secret = await self.store.daily_secret()
        return self._secret

    async def start(self, member: Member) -> JSON:
        """`daily`: create the player's own room for today's challenge and deal its first deal."""
        day = utc_day(self.clock())
        secret = daily_session_secret(await self.server_secret(), day)
        request = CreateRoom(type="create_room", id=0, ruleset=DAILY_RULESET, house_rules={},
                             session=SessionLength(), listed=False, bot=default_bot(),
                             name=f"Daily challenge {day}", seat=DAILY_SEAT)
        # The day and the secret are part of the created table (the session is dealt from the secret).
        created = await self.tables.create_room(member, request, Daily(day, member.name), secret)
        await self.tables.start(member)
        log.info("daily game started", extra={"fields": {"room": created["room_id"], "day": day}})
        return {**created, "day": day}

    async def stored(self, room: LiveRoom, change: CommittedChange) -> None:
        """After a stored change: if a daily game's deal has just ended, update its leaderboard line."""
        table = room.table
        daily = table.daily
        session = table.session
        if daily is None or session is None or not session.deal.finished or not change.stored:
            return
        if session.played_deals < MIN_DEALS or self._recorded.get(room) == session.deal_number:
            return
        score = game_score(session.balances[DAILY_SEAT])
        try:
            await self.store.record_leaderboard(daily.day, room.room_id, daily.player, score,
                                                session.played_deals, self.clock())
        except Exception:
            # The deal itself is stored; the line is written again after the room's next change.
            log.exception("room %s: leaderboard write failed", room.room_id)
            return
        self._recorded[room] = session.deal_number

    async def ranking(self, member: Member, day: str | None, limit: int) -> JSON:
        """`leaderboard`: a day's ranked lines (today's by default)."""
        shown_day = check_day(day) if day is not None else utc_day(self.clock())
        lines, total = await self.store.leaderboard_top(shown_day, limit)
        room = self.tables.room_of(member)
        mine = room.room_id if room is not None else None
        entries = [line.public(rank, line.room_id == mine) for rank, line in enumerate(lines, start=1)]
        return {"day": shown_day, "total": total, "entries": entries}
