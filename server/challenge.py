"""The daily challenge: every player of a UTC day gets the same `couleur` deals against the same bots.

The session secret of a day's games is HMAC-SHA256(server daily secret, "daily:couleur:<day>"): the same
for every game of the day, a different one the next day, and not computable from the public shuffle
algorithm without the server secret. Deal seeds and the first dealer (the session's cut) follow from
it; the bots are deterministic (their seed is the deal's seed, the seat and the decision's position in
the deal: see `server/table/play.py`, `decision_seed`), so equal play gives equal results.

The challenge counts once: each browser sends a player key with `daily` (the server keeps only its
hash). A key's first game of the day counts; its later games that day, and games started without a key,
are practice (`Daily.practice`): they never enter the leaderboard or the per-deal results. The claim is
made when the game is created, so a first game that is abandoned still was the one that counted.

After each deal of a counted game, the game's result of that deal is stored under the deal's key (the
SHA-256 of the deal's seed: every game of a day meets the same seeds), and, from `MIN_DEALS` played
deals on, the game's line on the day's leaderboard is updated (the `stored` hook of a room listener:
after the room's change is stored, before anyone hears of it). `daily_deal_results` shows how everyone
played a deal, only to a player whose own daily game has finished that deal.
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

from .live import CommittedChange, LiveRoom, Member, NewRoom, RoomListener, Tables
from .store import Store
from .table import Daily, errors, hash_token

log = logging.getLogger("whist.daily")

JSON = dict[str, Any]
DAILY_RULESET = "couleur"
DAILY_SEAT = 0  # the human's seat; the bots hold 1-3
MIN_DEALS = 2  # "il n'entre au classement qu'après deux donnes au moins"
SCORE_OFFSET = 1000  # "ton total, augmenté de 1 000"
SECRET_ENV = "WHIST_DAILY_SECRET"
# The daily challenge's bots: always the heuristic bot (never the room default or the expert), so that
# every game of a day meets the same opponents and the results stay comparable (docs/bots.md).
DAILY_BOT = "heuristic"
MAX_DEAL_RESULTS = 100  # lines of a `daily_deal_results` answer (the asker's own line always comes too)


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


def deal_key(record: JSON) -> str:
    """The key of a deal of the day: the same for every game that meets this deal (its seed's hash)."""
    return hashlib.sha256(str(record["seed"]).encode()).hexdigest()[:32]


def deal_result(entry: JSON, player: str) -> JSON:
    """A game's stored result of one deal (a session history entry): the contract and the player's
    (seat 0's) points for the deal, and the game score reached after it."""
    result = entry["result"]
    return {"name": player, "status": result["status"], "contract": result["contract"],
            "declarers": result["declarers"], "trump": result["trump"],
            "tricks": result["tricks"][DAILY_SEAT], "points": result["points"][DAILY_SEAT],
            "score": game_score(entry["balances"][DAILY_SEAT])}


def ranked(lines: list[JSON]) -> list[JSON]:
    """Lines by the deal's points, best first; equal points share a place (1, 2, 2, 4)."""
    ordered = sorted(lines, key=lambda line: (-int(line["points"]), -int(line["score"]), str(line["name"])))
    place = 0
    for index, line in enumerate(ordered):
        if index == 0 or line["points"] != ordered[index - 1]["points"]:
            place = index + 1
        line["place"] = place
    return ordered


def check_day(day: str) -> str:
    """A YYYY-MM-DD date, or `BadDay` (wire code `invalid_message`)."""
    try:
        parsed = datetime.date.fromisoformat(day)
    except ValueError:
        parsed = None
    if parsed is None or parsed.isoformat() != day:
        raise errors.BadDay(f"day {day!r} is not a date written YYYY-MM-DD")
    return day


class DailyChallenge(RoomListener):
    """Starts daily games and keeps their leaderboard lines; one per server, on the server's store."""

    def __init__(self, tables: Tables, store: Store, secret: str | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.tables = tables
        self.store = store
        self._secret = secret or os.environ.get(SECRET_ENV) or None
        self.clock = clock
        # The deal (0-based, thrown-in deals included) last written per live room, to the leaderboard
        # and to the deal results: a room's other changes (ready, joins, ...) then cost one lookup.
        # Forgotten with the room object.
        self._recorded: weakref.WeakKeyDictionary[LiveRoom, int] = weakref.WeakKeyDictionary()
        self._results_recorded: weakref.WeakKeyDictionary[LiveRoom, int] = weakref.WeakKeyDictionary()

    async def server_secret(self) -> str:
        """The configured secret, else the store's (created once)."""
        if self._secret is None:
            self._secret = await self.store.daily_secret()
        return self._secret

    async def start(self, member: Member, player_key: str | None = None) -> JSON:
        """`daily`: create the player's own room for today's challenge and deal its first deal. The
        player key's first game of the day counts; any other is practice."""
        day = utc_day(self.clock())
        secret = daily_session_secret(await self.server_secret(), day)
        first = player_key is not None and await self.store.claim_daily_player(day, hash_token(player_key))
        request = NewRoom(DAILY_RULESET, listed=False, bot=DAILY_BOT, name=f"Daily challenge {day}",
                          seat=DAILY_SEAT)
        # The day and the secret are part of the created table (the session is dealt from the secret).
        daily = Daily(day, member.name, practice=not first)
        created = await self.tables.create_room(member, request, daily, secret)
        await self.tables.start(member)
        log.info("daily game started", extra={"fields": {"room": created["room_id"], "day": day,
                                                         "practice": daily.practice}})
        return {**created, "day": day, "practice": daily.practice}

    async def stored(self, room: LiveRoom, change: CommittedChange) -> None:
        """After a stored change: if a daily game's deal has just ended, update its leaderboard line."""
        table = room.table
        daily = table.daily
        session = table.session
        if daily is None or daily.practice or session is None or not change.stored:
            return
        if not session.deal.finished:
            return
        if self._results_recorded.get(room) != session.deal_number:
            entry = session.history[-1]
            try:
                await self.store.write_deal_result(daily.day, deal_key(entry["record"]), room.room_id,
                                                   deal_result(entry, daily.player))
                self._results_recorded[room] = session.deal_number
            except Exception:
                log.exception("room %s: deal result write failed", room.room_id)
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

    async def deal_results(self, member: Member, deal: int) -> JSON:
        """`daily_deal_results`: how every counted game of the day played deal `deal` of the asker's
        own daily game, which must have finished it (a deal is never shown before it is played)."""
        room = self.tables.room_of(member)
        table = room.table if room is not None else None
        if table is None or table.daily is None or room is None:
            raise errors.NotDaily("you are in no daily game: deal results are shown to players of the daily "
                                  "challenge, for the deals their own game has finished")
        if room.members.get(member) is None or table.session is None or deal >= len(table.session.history):
            raise errors.DealNotFinished(f"your daily game has not finished deal {deal}: results are shown "
                                         "only for deals you have played")
        daily = table.daily
        entry = table.session.history[deal]
        stored = await self.store.deal_results(daily.day, deal_key(entry["record"]))
        own = stored.pop(room.room_id, None) or deal_result(entry, daily.player)
        lines = [{**line, "mine": False, "practice": False} for line in stored.values()]
        lines.append({**own, "mine": True, "practice": daily.practice})
        ordered = ranked(lines)
        mine = next(line for line in ordered if line["mine"])
        shown = [line for line in ordered[:MAX_DEAL_RESULTS] if not line["mine"]] + [mine]
        return {"day": daily.day, "deal": deal, "practice": daily.practice,
                "games": len(lines) - (1 if daily.practice else 0), "place": mine["place"],
                "results": sorted(shown, key=lambda line: (int(line["place"]), not line["mine"]))}
