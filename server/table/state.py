"""The table's typed state: options, seats, host, presence and the session, and its stored form.

A `Table` is immutable: every command (`seating.py`, `play.py`, `presence.py`) returns a new one. The
live rules engine object (`Session`) is the one mutable part; commands that change it work on a fork
(`fork_session`), so the table they were given never changes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ..rules import Session

JSON = dict[str, Any]
SEATS = (0, 1, 2, 3)
SeatKind = Literal["human", "bot", "empty"]


def hash_token(token: str) -> str:
    """Tokens are stored hashed: the store never holds a usable token."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat: who holds it. `participant` is the hash of the holder's token (humans only)."""

    kind: SeatKind = "empty"
    name: str | None = None
    participant: str | None = None
    bot: str | None = None  # a bot kind chosen for this seat (None: the room's bot)


EMPTY_SEAT = Seat()


@dataclass(frozen=True, slots=True)
class Options:
    """What the host chose at creation; never changes afterwards."""

    name: str
    ruleset: str
    house_rules: Mapping[str, Any]
    listed: bool
    bot: str
    deals: int | None
    target: int | None
    grace_seconds: float
    turn_seconds: float = 0.0  # the turn clock (server/table/clock.py); 0: no clock


@dataclass(frozen=True, slots=True)
class TurnClock:
    """A human's turn clock: whose, when it runs out (Unix seconds, the same on every process), and
    the turn it is for (see `clock.turn_key`)."""

    seat: int
    deadline: float
    turn: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Daily:
    """A daily-challenge room: its day and its player's name (see server/challenge.py)."""

    day: str
    player: str
    practice: bool = False  # not the player key's first game of the day: off the leaderboard


@dataclass(frozen=True, slots=True)
class Presence:
    """Who is here now (never stored): live connections per participant, spectators, and since when
    (monotonic seconds) each human seat's player has been away. `connections` and `spectators` count
    this process's connections; `remote_seats` and `remote_spectators` those of the other processes
    serving the room (several processes on one store: see server/live/shared.py)."""

    connections: Mapping[str, int] = field(default_factory=dict)
    spectators: int = 0
    away_since: Mapping[int, float] = field(default_factory=dict)
    remote_seats: frozenset[int] = frozenset()
    remote_spectators: int = 0


@dataclass(frozen=True, slots=True)
class Hint:
    """A hint given: the deal (0-based, thrown-in deals included), the seat, and the index in the
    deal's actions of the action it was asked for."""

    deal: int
    seat: int
    action_index: int


@dataclass(frozen=True, slots=True)
class Table:
    """One table. Everything but `presence` and `version` is stored (see `to_stored`)."""

    room_id: str
    options: Options
    created_at: float
    host: str | None  # participant holding host rights
    seats: tuple[Seat, Seat, Seat, Seat] = (EMPTY_SEAT, EMPTY_SEAT, EMPTY_SEAT, EMPTY_SEAT)
    ready: frozenset[int] = frozenset()
    ended: bool = False
    daily: Daily | None = None
    secret: str | None = None  # the session secret to start with (daily rooms), until the start
    hints: tuple[Hint, ...] = ()
    session: Session | None = None
    clock: TurnClock | None = None
    clock_misses: Mapping[int, int] = field(default_factory=dict)  # turn-clock expiries in a row, per seat
    clock_takeover: frozenset[int] = frozenset()  # seats the bot plays after too many expiries
    clock_once: frozenset[int] = frozenset()  # seats whose clock ran out: the bot plays one action
    chat_muted: frozenset[int] = frozenset()  # seats the host muted in the table chat, for everyone
    play_again: frozenset[int] = frozenset()  # seats whose player asked for a new session ("Play again")
    # Per seat, how many times its token was resumed: the connection that resumed last holds the seat,
    # on whichever process it is (an older connection with the same token becomes a spectator).
    claims: tuple[int, int, int, int] = (0, 0, 0, 0)
    past_records: tuple[JSON, ...] = ()  # earlier sessions' deal records (from the log, never stored)
    session_number: int = 0  # how many sessions the table played before this one (from the log, never stored)
    presence: Presence = field(default_factory=Presence)
    version: int = 0

    def with_claim(self, seat: int) -> Table:
        """The table with `seat` claimed once more (a resume of its token)."""
        claims = list(self.claims)
        claims[seat] += 1
        return replace(self, claims=(claims[0], claims[1], claims[2], claims[3]))

    def with_seat(self, seat: int, holder: Seat) -> Table:
        """The table with `seat` held by `holder`."""
        seats = list(self.seats)
        seats[seat] = holder
        return replace(self, seats=(seats[0], seats[1], seats[2], seats[3]))


def fork_session(session: Session) -> Session:
    """An independent copy of a session to apply a change to (`Session.clone`: the deal is cloned, the
    finished deals' history is shared entry by entry, as entries never change)."""
    return session.clone()


# ------------------------------------------------------------------------------------------- stored form


def _seat_json(seat: Seat) -> JSON:
    return {"kind": seat.kind, "name": seat.name, "participant": seat.participant, "bot": seat.bot}


def _seat_from(data: Mapping[str, Any]) -> Seat:
    return Seat(data["kind"], data.get("name"), data.get("participant"), data.get("bot"))


def to_stored(table: Table) -> JSON:
    """The table as the store keeps it (JSON). The session is kept as its settings only: its actions
    live in the room's event log, so a write costs the same on the first deal and the last."""
    state: JSON = {
        "room_id": table.room_id,
        "name": table.options.name,
        "ruleset": table.options.ruleset,
        "house_rules": dict(table.options.house_rules),
        "listed": table.options.listed,
        "bot": table.options.bot,
        "session_length": {"deals": table.options.deals, "target": table.options.target},
        "grace_seconds": table.options.grace_seconds,
        "turn_seconds": table.options.turn_seconds,
        "created_at": table.created_at,
        "host": table.host,
        "seats": [_seat_json(seat) for seat in table.seats],
        "ready": sorted(table.ready),
        "ended": table.ended,
        "session": table.session.config() if table.session is not None else None,
        "hints": [[hint.deal, hint.seat, hint.action_index] for hint in table.hints],
    }
    if table.clock is not None:
        clock = table.clock
        state["clock"] = {"seat": clock.seat, "deadline": clock.deadline, "turn": list(clock.turn)}
    if table.clock_misses or table.clock_takeover or table.clock_once:
        state["clock_misses"] = sorted([seat, n] for seat, n in table.clock_misses.items())
        state["clock_takeover"] = sorted(table.clock_takeover)
        state["clock_once"] = sorted(table.clock_once)
    if table.chat_muted:
        state["chat_muted"] = sorted(table.chat_muted)
    if table.play_again:
        state["play_again"] = sorted(table.play_again)
    if any(table.claims):
        state["claims"] = list(table.claims)
    if table.daily is not None:
        state["daily"] = {"day": table.daily.day, "player": table.daily.player,
                          "practice": table.daily.practice}
    if table.secret is not None:
        state["session_secret"] = table.secret
    return state


def from_stored(state: Mapping[str, Any], version: int, log: Iterable[Mapping[str, Any]]) -> Table:
    """The table from its stored state and event log (the session rebuilt by replaying the log)."""
    length = state["session_length"]
    options = Options(
        name=str(state["name"]), ruleset=str(state["ruleset"]), house_rules=dict(state["house_rules"]),
        listed=bool(state["listed"]), bot=str(state["bot"]), deals=length.get("deals"),
        target=length.get("target"), grace_seconds=float(state["grace_seconds"]),
        turn_seconds=float(state.get("turn_seconds", 0.0)),
    )
    clock = state.get("clock")
    seats = [_seat_from(seat) for seat in state["seats"]]
    daily = state.get("daily")
    session, past, number = _sessions_from_log(log) if state.get("session") is not None else (None, (), 0)
    return Table(
        room_id=str(state["room_id"]), options=options, created_at=float(state["created_at"]),
        host=state.get("host"), seats=(seats[0], seats[1], seats[2], seats[3]),
        ready=frozenset(int(seat) for seat in state.get("ready", [])), ended=bool(state.get("ended")),
        daily=Daily(str(daily["day"]), str(daily["player"]), bool(daily.get("practice"))) if daily else None,
        secret=state.get("session_secret"),
        hints=tuple(Hint(int(d), int(s), int(i)) for d, s, i in state.get("hints", [])),
        session=session, version=version,
        clock=_clock_from(clock) if clock else None,
        clock_misses={int(seat): int(n) for seat, n in state.get("clock_misses", [])},
        clock_takeover=frozenset(int(seat) for seat in state.get("clock_takeover", [])),
        clock_once=frozenset(int(seat) for seat in state.get("clock_once", [])),
        chat_muted=frozenset(int(seat) for seat in state.get("chat_muted", [])),
        play_again=frozenset(int(seat) for seat in state.get("play_again", [])),
        claims=_claims_from(state.get("claims", (0, 0, 0, 0))),
        past_records=past, session_number=number,
    )


def _claims_from(data: Iterable[Any]) -> tuple[int, int, int, int]:
    first, second, third, fourth = (int(n) for n in data)
    return first, second, third, fourth


def _clock_from(data: Mapping[str, Any]) -> TurnClock:
    deal, actions = data["turn"]
    return TurnClock(int(data["seat"]), float(data["deadline"]), (int(deal), int(actions)))


def advance(table: Table, state: Mapping[str, Any], version: int, entries: Iterable[Mapping[str, Any]]
            ) -> Table:
    """The table after one stored change made elsewhere (another process): `state` is the stored
    state it wrote, `entries` what it appended to the log. The session moves on by the logged
    actions alone (a fork: the given table never changes), not by replaying the whole log."""
    listed = list(entries)
    session = table.session
    past = table.past_records
    number = table.session_number
    if any(entry.get("t") == "started" for entry in listed) or session is None:
        if session is not None:  # "Play again": the session that was here is over
            past = (*past, *deal_records(session, table.hints))
            number += 1
        session = session_from_log(listed) if state.get("session") is not None else None
    elif any(entry.get("t") in ("act", "next_deal") for entry in listed):
        session = fork_session(session)
        _replay(session, listed)
    new = from_stored({**state, "session": None}, version, ())
    return replace(new, session=session, presence=table.presence, past_records=past, session_number=number)


def _replay(session: Session, entries: Iterable[Mapping[str, Any]]) -> None:
    for entry in entries:
        kind = entry.get("t")
        if kind == "act":
            session.apply(int(entry["seat"]), str(entry["action"]))
        elif kind == "next_deal":
            session.next_deal()


def session_from_log(entries: Iterable[Mapping[str, Any]]) -> Session | None:
    """The session as the room's event log leaves it: its settings, then every logged action replayed
    (the last session, when the table played again)."""
    return _sessions_from_log(entries)[0]


def _sessions_from_log(entries: Iterable[Mapping[str, Any]]
                       ) -> tuple[Session | None, tuple[JSON, ...], int]:
    """The last session of the log, the deal records of every earlier one (hints marked), and how
    many earlier ones there were."""
    session: Session | None = None
    hints: list[Hint] = []
    past: list[JSON] = []
    earlier = 0
    for entry in entries:
        kind = entry.get("t")
        if kind == "started":
            if session is not None:
                past.extend(deal_records(session, hints))
                earlier += 1
            session, hints = Session.from_config(entry["config"]), []
        elif kind == "hint":
            hints.append(Hint(int(entry["deal"]), int(entry["seat"]), int(entry["action_index"])))
        elif session is not None:
            _replay(session, (entry,))
    return session, tuple(past), earlier


def deal_records(session: Session | None, hints: Iterable[Hint]) -> list[JSON]:
    """Every finished deal as a deal record; a deal on which hints were given lists them (`hints`)."""
    if session is None:
        return []
    by_deal: dict[int, list[list[int]]] = {}
    for hint in hints:
        by_deal.setdefault(hint.deal, []).append([hint.seat, hint.action_index])
    records = []
    for number, item in enumerate(session.history):
        record = dict(item["record"])
        if number in by_deal:
            record["hints"] = by_deal[number]
        records.append(record)
    return records


def records_from_log(entries: Iterable[Mapping[str, Any]]) -> list[JSON]:
    """Every finished deal of a room's event log, as deal records (replaying the logged actions),
    every session's when the table played again."""
    listed = list(entries)
    session, past, _ = _sessions_from_log(listed)
    last_start = max((i for i, entry in enumerate(listed) if entry.get("t") == "started"), default=0)
    hints = [Hint(int(entry["deal"]), int(entry["seat"]), int(entry["action_index"]))
             for entry in listed[last_start:] if entry.get("t") == "hint"]
    return [*past, *deal_records(session, hints)]
