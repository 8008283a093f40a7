"""The turn clock, a house rule of the room (`Options.turn_seconds`; 0 is off).

While a human is to act, the table holds a `TurnClock`: whose clock runs and its deadline, in Unix
seconds, so that every process reads it the same way and a failover or a reload does not restart it
(it is stored with the table). When it runs out, `turn_expired` has the room's bot play that one
action for the player; after `MISSES_TO_TAKE_OVER` expiries in a row the bot keeps the seat until the
player acts or comes back (`resume`). Bots have no clock.

Between two deals the clock runs too, for the humans who have not said `ready`: one deadline for the
pause (the clock moves on to the next human still to say it, keeping the deadline), and when it runs
out every connected human counts as ready and the next deal is dealt (`ready_expired`). A present
player who stopped looking never holds the table between deals either.

Pure: the wall-clock time is an argument.
"""

from __future__ import annotations

from dataclasses import replace

from .facts import connected, over
from .outcome import Outcome
from .state import SEATS, Table, TurnClock

#: Expiries in a row after which the bot plays the seat until its player is back.
MISSES_TO_TAKE_OVER = 2
#: The second part of the turn key between two deals (a deal's own turns count its actions, >= 0).
BETWEEN_DEALS = -1


def turn_key(table: Table) -> tuple[int, int] | None:
    """What identifies the turn now: (deals finished, thrown-in ones included; actions of the deal
    so far); None between deals or when nothing is being played."""
    session = table.session
    if session is None or over(table):
        return None
    if session.deal.finished:
        return len(session.history), BETWEEN_DEALS
    return len(session.history), len(session.deal.log)


def between_deals(table: Table) -> bool:
    """Whether the table is in the pause between two deals of a session that goes on."""
    key = turn_key(table)
    return key is not None and key[1] == BETWEEN_DEALS


def unready_humans(table: Table) -> list[int]:
    """The connected human seats that have not said `ready` (the bot's seats do not wait)."""
    return [seat for seat in SEATS
            if table.seats[seat].kind == "human" and seat not in table.clock_takeover
            and connected(table, seat) and seat not in table.ready]


def clocked_seat(table: Table) -> int | None:
    """The seat whose clock should run: the first human seat to act that the bot is not already
    playing for a clock reason (None when the rule is off)."""
    if table.options.turn_seconds <= 0 or turn_key(table) is None:
        return None
    if between_deals(table):
        waiting = unready_humans(table)
        return waiting[0] if waiting else None
    assert table.session is not None
    for seat in sorted(table.session.deal.to_act()):
        holder = table.seats[seat]
        if holder.kind == "human" and seat not in table.clock_takeover and seat not in table.clock_once:
            return seat
    return None


def rearm(table: Table, wall_now: float) -> Table:
    """The table with its clock for the turn now: kept if it already runs for this very turn (a
    reload, a failover, a presence change), started afresh for a new turn, cleared when no human is
    to act."""
    seat = clocked_seat(table)
    key = turn_key(table)
    if seat is None or key is None:
        return table if table.clock is None else replace(table, clock=None)
    current = table.clock
    if current is not None and current.turn == key:
        if current.seat == seat:
            return table
        if key[1] == BETWEEN_DEALS:  # one deadline for the whole pause
            return replace(table, clock=replace(current, seat=seat))
    return replace(table, clock=TurnClock(seat, wall_now + table.options.turn_seconds, key))


def turn_expired(table: Table, seat: int, wall_now: float) -> Outcome:
    """The clock of `seat` ran out: the bot plays this one action for the player (`turn_expired`),
    and after too many in a row takes the seat over (`bot_took_over`, reason `clock`). Anything else
    (no clock, another seat's, not yet due: a timer that fired late or twice) changes nothing."""
    clock = table.clock
    if clock is None or clock.seat != seat or wall_now < clock.deadline or turn_key(table) != clock.turn:
        return Outcome(table, stored=False)
    if clock.turn[1] == BETWEEN_DEALS:
        return _pause_expired(table)
    misses = {**table.clock_misses, seat: table.clock_misses.get(seat, 0) + 1}
    events = [{"type": "turn_expired", "seat": seat}]
    takeover = table.clock_takeover
    if misses[seat] >= MISSES_TO_TAKE_OVER:
        takeover = takeover | {seat}
        events.append({"type": "bot_took_over", "seat": seat, "reason": "clock"})
    new = replace(table, clock=None, clock_misses=misses, clock_takeover=takeover,
                  clock_once=table.clock_once | {seat})
    return Outcome(new, {"seat": seat}, events, [{"t": "turn_expired", "seat": seat}])


def _pause_expired(table: Table) -> Outcome:
    """The pause between two deals ran out: every connected human counts as ready."""
    seats = unready_humans(table)
    new = replace(table, clock=None, ready=table.ready | frozenset(seats))
    return Outcome(new, {"seats": seats}, [{"type": "ready_expired", "seats": seats}],
                   [{"t": "ready_expired", "seats": seats}])


def acted(table: Table, seat: int, by_bot: bool) -> Table:
    """The clock's bookkeeping after `seat` acted: a bot's action uses up one expiry; the player's
    own action resets the count and takes the seat back from the bot."""
    if by_bot:
        if seat not in table.clock_once:
            return table
        return replace(table, clock_once=table.clock_once - {seat})
    if seat not in table.clock_misses and seat not in table.clock_takeover and seat not in table.clock_once:
        return table
    misses = {s: n for s, n in table.clock_misses.items() if s != seat}
    return replace(table, clock_misses=misses, clock_takeover=table.clock_takeover - {seat},
                   clock_once=table.clock_once - {seat})


def came_back(table: Table, seat: int) -> Table:
    """The player of `seat` says they are back (`resume`): the bot stops playing for them."""
    if seat not in table.clock_takeover and seat not in table.clock_misses:
        return table
    misses = {s: n for s, n in table.clock_misses.items() if s != seat}
    return replace(table, clock_misses=misses, clock_takeover=table.clock_takeover - {seat})
