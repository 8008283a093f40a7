"""Presence commands: a connection arrives or departs, a grace period ends. Nothing here is stored."""

from __future__ import annotations

from dataclasses import replace

from .facts import away_past_grace, bot_playing, connected, over, seat_of, started
from .outcome import Outcome
from .state import Presence, Table


def arrive(table: Table, participant: str | None, now: float) -> Outcome:
    """A connection enters; if a bot was playing its seat, the player is back (`player_returned`)."""
    seat = seat_of(table, participant)
    presence = table.presence
    if seat is None or participant is None:
        new = replace(table, presence=replace(presence, spectators=presence.spectators + 1))
        return Outcome(new, stored=False, presence={"arrived": None})
    # Asked before the connection counts: afterwards the seat is connected and no bot plays it. (A
    # seat the turn clock handed to the bot stays the bot's until its player acts or resumes.)
    was_bot = started(table) and away_past_grace(table, seat, now)
    connections = dict(presence.connections)
    connections[participant] = connections.get(participant, 0) + 1
    away = {s: t for s, t in presence.away_since.items() if s != seat}
    new = replace(table, presence=replace(presence, connections=connections, away_since=away))
    events = [{"type": "player_returned", "seat": seat}] if was_bot else []
    return Outcome(new, events=events, stored=False, presence={"arrived": seat})


def depart(table: Table, participant: str | None, now: float) -> Outcome:
    """A connection leaves or drops; a seat left with no connection starts its grace period. A
    connection counts as it arrived: under its participant if it held a seat then, else as a spectator
    (its seat may have been given up meanwhile, by `leave`)."""
    presence = table.presence
    if participant is None or participant not in presence.connections:
        new = replace(table, presence=replace(presence, spectators=max(0, presence.spectators - 1)))
        return Outcome(new, stored=False, presence={"departed": None})
    connections = dict(presence.connections)
    left = connections[participant] - 1
    if left > 0:
        connections[participant] = left
    else:
        del connections[participant]
    new = replace(table, presence=replace(presence, connections=connections))
    seat = seat_of(table, participant)
    if seat is not None and not connected(new, seat):
        new = replace(new, presence=replace(new.presence, away_since={**presence.away_since, seat: now}))
    return Outcome(new, stored=False, presence={"departed": seat})


def sync_remote(table: Table, seats: frozenset[int], spectators: int, now: float
                ) -> tuple[Outcome, list[int]]:
    """The other processes' connections are now `seats` and `spectators` (shared presence). Returns
    the outcome (not stored, no events: the process where a player came or went tells everyone) and
    the human seats left with no connection anywhere by this change (their grace period starts)."""
    presence = table.presence
    before = [seat for seat in range(4) if connected(table, seat)]
    new = replace(table, presence=replace(presence, remote_seats=seats, remote_spectators=max(0, spectators)))
    away = dict(presence.away_since)
    newly_away = []
    for seat in range(4):
        if table.seats[seat].kind != "human":
            continue
        if connected(new, seat):
            away.pop(seat, None)
        elif seat in before:
            away[seat] = now
            newly_away.append(seat)
    new = replace(new, presence=replace(new.presence, away_since=away))
    return Outcome(new, stored=False), newly_away


def away_from_start(table: Table, now: float) -> Table:
    """A table just loaded from the store: every human is away until they come back (since now)."""
    away = {seat: now for seat in range(4) if table.seats[seat].kind == "human"}
    return replace(table, presence=Presence({}, 0, away))


def grace_expired(table: Table, seat: int, now: float) -> Outcome:
    """A seat's grace period is over: if its player is still away, the bot takes over."""
    human = table.seats[seat].kind == "human"
    if human and started(table) and not over(table) and bot_playing(table, seat, now):
        return Outcome(table, events=[{"type": "bot_took_over", "seat": seat}], stored=False)
    return Outcome(table, stored=False)
