"""Questions about a table, answered from its state alone (no clock but the one passed in)."""

from __future__ import annotations

from ..rules import Session
from .state import JSON, SEATS, Table

NEXT_DEAL = -1  # `bot_work`: the next deal is due


def current_deal_index(session: Session) -> int:
    """The 0-based number of the deal on the table (the session counts a deal once it has ended)."""
    return session.deal_number - 1 if session.deal.finished else session.deal_number


def started(table: Table) -> bool:
    """Whether the host has started the session."""
    return table.session is not None


def over(table: Table) -> bool:
    """Whether the session is over (played out, or ended by the host)."""
    return table.ended or (table.session is not None and table.session.over)


def status(table: Table) -> str:
    """waiting, playing, between_deals or over."""
    if over(table):
        return "over"
    if table.session is None:
        return "waiting"
    return "between_deals" if table.session.deal.finished else "playing"


def seat_of(table: Table, participant: str | None) -> int | None:
    """The seat a participant (token hash) holds, if any."""
    if participant is None:
        return None
    for seat in SEATS:
        holder = table.seats[seat]
        if holder.kind == "human" and holder.participant == participant:
            return seat
    return None


def is_host(table: Table, participant: str | None) -> bool:
    """Whether the participant holds host rights."""
    return participant is not None and participant == table.host


def connected(table: Table, seat: int) -> bool:
    """Whether a human seat's player is connected, here or through another process (bot seats count
    as connected, empty ones not)."""
    holder = table.seats[seat]
    if holder.kind != "human":
        return holder.kind == "bot"
    if seat in table.presence.remote_seats:
        return True
    return holder.participant is not None and table.presence.connections.get(holder.participant, 0) > 0


def spectators(table: Table) -> int:
    """How many connections watch the room, over every process."""
    return table.presence.spectators + table.presence.remote_spectators


def local_seats(table: Table) -> frozenset[int]:
    """The seats this process's connections hold."""
    return frozenset(seat for seat in SEATS if table.seats[seat].kind == "human"
                     and table.presence.connections.get(table.seats[seat].participant or "", 0) > 0)


def away_past_grace(table: Table, seat: int, now: float) -> bool:
    """Whether a human seat's player has been away (no connection anywhere) past the grace period."""
    if table.seats[seat].kind != "human" or connected(table, seat):
        return False
    since = table.presence.away_since.get(seat)
    return since is not None and now - since >= table.options.grace_seconds


def clock_hands_over(table: Table, seat: int) -> bool:
    """Whether the turn clock has the bot play this seat: for one action after an expiry, or until
    the player is back after too many (server/table/clock.py)."""
    return seat in table.clock_once or seat in table.clock_takeover


def bot_playing(table: Table, seat: int, now: float) -> bool:
    """Whether a bot plays this seat now: no human holds it, its player is away past the grace, or
    the turn clock handed it to the bot."""
    holder = table.seats[seat]
    if table.session is None:
        return holder.kind == "bot"
    if holder.kind != "human":
        return True
    return clock_hands_over(table, seat) or away_past_grace(table, seat, now)


def room_clock(table: Table, now: float) -> JSON | None:
    """The room's `clock` as every seat and spectator sees it: whose clock runs and its deadline
    (Unix seconds), or None (no clock runs, or a bot plays that seat: bots have no clock)."""
    clock = table.clock
    if clock is None or bot_playing(table, clock.seat, now):
        return None
    return {"seat": clock.seat, "deadline": clock.deadline}


def free_seats(table: Table) -> list[int]:
    """Seats a human may join: empty ones; after the start, any seat no human holds."""
    if table.daily is not None:  # a daily game's bots are part of the challenge
        return [0] if table.seats[0].kind != "human" else []
    if table.session is not None:
        return [seat for seat in SEATS if table.seats[seat].kind != "human"]
    return [seat for seat in SEATS if table.seats[seat].kind == "empty"]


def everyone_ready(table: Table) -> bool:
    """Whether the next deal may be dealt: every connected human is ready (bot-only tables play on
    by themselves only when the session has an end). A seat the turn clock handed to the bot counts
    as the bot's: an absent player does not hold the table between deals either."""
    humans = [seat for seat in SEATS
              if table.seats[seat].kind == "human" and seat not in table.clock_takeover]
    if not humans:
        return table.options.deals is not None or table.options.target is not None
    here = [seat for seat in humans if connected(table, seat)]
    return bool(here) and all(seat in table.ready for seat in here)


def bot_work(table: Table, now: float) -> int | None:
    """The seat a bot should act for now, `NEXT_DEAL` to deal the next deal, or None."""
    session = table.session
    if session is None or over(table):
        return None
    if session.deal.finished:
        return NEXT_DEAL if everyone_ready(table) else None
    for seat in sorted(session.deal.to_act()):
        if bot_playing(table, seat, now):
            return seat
    return None


def room_info(table: Table, now: float) -> JSON:
    """The public facts of the room (the `room` of a `state` push)."""
    session = table.session
    options = table.options
    return {
        "room_id": table.room_id,
        "name": options.name,
        "ruleset": options.ruleset,
        "house_rules": dict(session.house_rules if session else options.house_rules),
        "listed": options.listed,
        "bot": options.bot,
        "session": {"deals": options.deals, "target": options.target},
        "grace_seconds": options.grace_seconds,
        "turn_seconds": options.turn_seconds,
        "clock": room_clock(table, now),
        "status": status(table),
        "host_seat": seat_of(table, table.host),
        "seats": [
            {
                "seat": seat,
                "kind": table.seats[seat].kind,
                "name": table.seats[seat].name,
                "connected": connected(table, seat),
                "bot_playing": bot_playing(table, seat, now),
                "ready": seat in table.ready or (table.seats[seat].kind != "human" and session is not None),
            }
            for seat in SEATS
        ],
        "spectators": spectators(table),
        "deal_number": current_deal_index(session) if session else 0,
        "played_deals": session.played_deals if session else 0,
        "balances": list(session.balances) if session else [0, 0, 0, 0],
        "session_over": over(table),
        "version": table.version,
        "chat_muted": sorted(table.chat_muted),
        "play_again": sorted(table.play_again),
        "daily": table.daily.day if table.daily is not None else None,
        "practice": table.daily is not None and table.daily.practice,
    }


def lobby_entry(table: Table) -> JSON | None:
    """The room's lobby line, or None when it does not belong in the lobby."""
    if not table.options.listed or over(table):
        return None
    return {
        "room_id": table.room_id,
        "name": table.options.name,
        "ruleset": table.options.ruleset,
        "status": status(table),
        "humans": sum(1 for seat in table.seats if seat.kind == "human"),
        "free_seats": len(free_seats(table)),
        "spectators": 0,  # live counts are added by the server that holds the room
        "session": {"deals": table.options.deals, "target": table.options.target},
        "created_at": table.created_at,
    }
