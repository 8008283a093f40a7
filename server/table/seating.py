"""Commands that set up a table: create, join, resume, watch, leave, add and remove a bot, start.

Each is a pure function: it checks first (raising a `TableError`, nothing changed), then returns an
`Outcome` with a new table. Randomness (tokens, secrets) and time come in as arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..bots import bot_names
from ..rules import RulesError, Session, get_ruleset, ruleset_names
from . import clock, errors
from .facts import free_seats, is_host, over, seat_of, started
from .outcome import Outcome
from .state import EMPTY_SEAT, SEATS, Daily, Options, Seat, Table, hash_token, to_stored


def default_bot() -> str:
    """The bot a room uses unless told otherwise."""
    return "heuristic" if "heuristic" in bot_names() else "random"


def check_bot(kind: str) -> str:
    """`kind` if this server has such a bot, else `UnknownBot`."""
    if kind not in bot_names():
        raise errors.UnknownBot(f"unknown bot {kind!r}; known: {', '.join(bot_names())}")
    return kind


def check_host(table: Table, participant: str | None) -> None:
    """`NotHost` unless the participant holds host rights."""
    if not is_host(table, participant):
        raise errors.NotHost("only the host may do this")


def create(
    room_id: str, *, token: str, player: str, ruleset: str, house_rules: Mapping[str, Any], bot: str | None,
    name: str | None, seat: int | None, deals: int | None, target: int | None, grace_seconds: float,
    listed: bool, now: float, daily: Daily | None = None, secret: str | None = None,
    turn_seconds: float = 0.0,
) -> Outcome:
    """A new table; the holder of `token` is its host and, unless `seat` is None, sits there."""
    if ruleset not in ruleset_names():
        raise errors.UnknownRuleset(f"unknown ruleset {ruleset!r}; known: {', '.join(ruleset_names())}")
    try:
        resolved = get_ruleset(ruleset).resolve_house_rules(house_rules)
    except RulesError as problem:
        raise errors.BadHouseRules(problem.reason) from None
    options = Options(name or f"{player}'s table", ruleset, resolved, listed, check_bot(bot or default_bot()),
                      deals, target, grace_seconds, turn_seconds)
    participant = hash_token(token)
    table = Table(room_id, options, now, participant, daily=daily, secret=secret)
    if seat is not None:
        table = table.with_seat(seat, Seat("human", player, participant))
    private = ("session", "session_secret")  # the secret is the daily game's: never in the log
    stored = {key: value for key, value in to_stored(table).items() if key not in private}
    return Outcome(table, {"room_id": room_id, "token": token, "seat": seat, "host": True}, [],
                   [{"t": "created", "room": stored}])


def join(table: Table, token: str, player: str, wanted: int | None) -> Outcome:
    """Take a seat (the first free one when `wanted` is None) with `token` (a fresh one, or the one
    the connection already holds in this room)."""
    if over(table):
        raise errors.SessionOver("the session is over")
    participant = hash_token(token)
    held = seat_of(table, participant)
    if held is not None:
        raise errors.AlreadySeated(f"you already hold seat {held}")
    free = free_seats(table)
    if wanted is None:
        if not free:
            raise errors.RoomFull("every seat is taken")
        seat = free[0]
    elif wanted not in free:
        holder = table.seats[wanted]
        taken_by = f"{holder.kind} {holder.name or ''}".strip()
        raise errors.SeatTaken(f"seat {wanted} is taken (by {taken_by})")
    else:
        seat = wanted
    away = {s: t for s, t in table.presence.away_since.items() if s != seat}
    new = table.with_seat(seat, Seat("human", player, participant))
    new = replace(new, presence=replace(table.presence, away_since=away))
    answer = {"room_id": table.room_id, "seat": seat, "token": token, "host": is_host(table, participant)}
    return Outcome(new, answer, [{"type": "seat_changed", "seat": seat, "kind": "human", "name": player}],
                   [{"t": "seat", "seat": seat, "kind": "human", "name": player}])


def resume(table: Table, token: str) -> Outcome:
    """Come back with a seat token: the seat (and host rights) it holds. A seat's resume is stored
    (`claims`): the connection that resumed last holds the seat on every process, and the turn clock's
    bot gives the seat back ("I'm back"). The connection's arrival is `presence.arrive`."""
    participant = hash_token(token)
    seat = seat_of(table, participant)
    if seat is None and not is_host(table, participant):
        raise errors.BadToken("this room knows no such token (it may have been given up by 'leave')")
    answer = {"room_id": table.room_id, "seat": seat, "host": is_host(table, participant)}
    if seat is None:
        return Outcome(table, answer, stored=False)
    events = []
    if seat in table.clock_takeover:  # "I'm back": the bot gives the seat back
        events.append({"type": "player_returned", "seat": seat, "reason": "clock"})
    claimed = clock.came_back(table, seat).with_claim(seat)
    return Outcome(claimed, answer, events,
                   [{"t": "claim", "seat": seat, "claim": claimed.claims[seat]}])


def watch(table: Table) -> Outcome:
    """Enter as a spectator: changes nothing by itself."""
    return Outcome(table, {"room_id": table.room_id, "seat": None}, stored=False)


def leave(table: Table, participant: str | None) -> Outcome:
    """Give up the seat (a bot plays it after the start) and host rights (to the first human left)."""
    seat = seat_of(table, participant)
    if seat is None and not is_host(table, participant):
        return Outcome(table, {"room_id": table.room_id}, stored=False)
    new, events, entries = table, [], []
    if seat is not None:
        holder = Seat("bot", f"{table.options.bot} bot") if started(table) else EMPTY_SEAT
        new = new.with_seat(seat, holder)
        away = {s: t for s, t in table.presence.away_since.items() if s != seat}
        new = replace(new, ready=new.ready - {seat}, presence=replace(new.presence, away_since=away))
        events.append({"type": "seat_changed", "seat": seat, "kind": holder.kind, "name": holder.name})
        entries.append({"t": "seat", "seat": seat, "kind": holder.kind, "name": None})
    if is_host(table, participant):
        humans = [s for s in SEATS if new.seats[s].kind == "human"]
        new = replace(new, host=new.seats[humans[0]].participant if humans else None)
        entries.append({"t": "host", "seat": humans[0] if humans else None})
    return Outcome(new, {"room_id": table.room_id}, events, entries)


def add_bot(table: Table, participant: str | None, wanted: int | None, kind: str | None) -> Outcome:
    """Host: a bot on an empty seat (the first one when `wanted` is None)."""
    check_host(table, participant)
    if kind is not None:
        check_bot(kind)
    if over(table):
        raise errors.SessionOver("the session is over")
    empty = [seat for seat in SEATS if table.seats[seat].kind == "empty"]
    if wanted is None:
        if not empty:
            raise errors.RoomFull("no empty seat for a bot")
        seat = empty[0]
    elif wanted not in empty:
        raise errors.SeatTaken(f"seat {wanted} is not empty")
    else:
        seat = wanted
    name = f"{kind or table.options.bot} bot"
    return Outcome(table.with_seat(seat, Seat("bot", name, None, kind)), {"seat": seat},
                   [{"type": "seat_changed", "seat": seat, "kind": "bot", "name": name}],
                   [{"t": "seat", "seat": seat, "kind": "bot", "name": name}])


def remove_bot(table: Table, participant: str | None, seat: int) -> Outcome:
    """Host: the seat becomes empty (a bot still plays it after the start)."""
    check_host(table, participant)
    if table.daily is not None:
        raise errors.DailyRoom("a daily challenge plays against its three bots: they stay")
    if table.seats[seat].kind != "bot":
        raise errors.NotABot(f"seat {seat} holds no bot ({table.seats[seat].kind})")
    return Outcome(table.with_seat(seat, EMPTY_SEAT), {"seat": seat},
                   [{"type": "seat_changed", "seat": seat, "kind": "empty", "name": None}],
                   [{"t": "seat", "seat": seat, "kind": "empty", "name": None}])


def start(table: Table, participant: str | None, secret: str) -> Outcome:
    """Host: bots fill the empty seats and the first deal is dealt. `secret` is the session secret
    unless the table brought its own (a daily game's)."""
    check_host(table, participant)
    if started(table):
        raise errors.AlreadyStarted("the game has already started")
    options = table.options
    session = Session(options.ruleset, table.secret or secret, options.house_rules,
                      deals=options.deals, target=options.target)
    new, events = table, []
    for seat in SEATS:
        if new.seats[seat].kind == "empty":
            name = f"{options.bot} bot"
            new = new.with_seat(seat, Seat("bot", name))
            events.append({"type": "seat_changed", "seat": seat, "kind": "bot", "name": name})
    new = replace(new, session=session, secret=None, ready=frozenset())
    events.append({"type": "deal_started", "deal_number": 0, "dealer": session.deal.dealer})
    seats = [{"kind": s.kind, "name": s.name, "participant": None, "bot": s.bot} for s in new.seats]
    entry = {"t": "started", "config": session.config(), "seats": seats}
    return Outcome(new, {"deal_number": 0}, events, [entry])
