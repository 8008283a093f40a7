"""What the archive keeps: a finished session, its seats and its deals, and what it answers about a
player. Plain data; the query columns of a deal are derived from its deal record by replaying it
(`DealEntry.from_record`), so they can never disagree with the record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..rules.record import replay
from ..table.state import hash_token

JSON = dict[str, Any]
SeatKind = Literal["human", "bot", "empty"]


def player_hash(player_key: str) -> str:
    """The archive's name for a player: the SHA-256 of the key the browser keeps (as the daily
    challenge stores it), so the archive never holds a usable key."""
    return hash_token(player_key)


@dataclass(frozen=True, slots=True)
class SeatEntry:
    """Who held a seat at the end of the session. `player` is the hashed player key of a human who
    gave one (None: an anonymous human, not in any history or rating); `bot` is a bot's level."""

    kind: SeatKind
    name: str | None = None
    player: str | None = None
    bot: str | None = None

    def to_json(self) -> JSON:
        """The stored and exported form."""
        return {"kind": self.kind, "name": self.name, "player": self.player, "bot": self.bot}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatEntry:
        """Back from `to_json`."""
        kind = data["kind"]
        if kind not in ("human", "bot", "empty"):
            raise ValueError(f"unknown seat kind {kind!r}")
        return cls(kind, data.get("name"), data.get("player"), data.get("bot"))


@dataclass(frozen=True, slots=True)
class DealFigures:
    """One finished deal's columns the archive queries, without its record (what a player's history
    shows of it: `Archive.session_figures`).

    `made` is whether the declarers' side scored (their points for the deal are above zero): True or
    False for a played deal, None for a deal thrown in (no contract)."""

    number: int  # 0-based, thrown-in deals included (as the live session counts them)
    status: str
    contract: str | None
    contract_kind: str | None
    declarers: tuple[int, ...]
    tricks: tuple[int, int, int, int]
    points: tuple[int, int, int, int]
    made: bool | None


@dataclass(frozen=True, slots=True)
class DealEntry(DealFigures):
    """One finished deal: its complete record, its figures, and the rest the archive keeps."""

    record: JSON
    multiplier: int
    seed: str | None
    seed_commitment: str | None

    @classmethod
    def from_record(cls, number: int, record: Mapping[str, Any]) -> DealEntry:
        """The entry of a finished deal record; raises `RecordError`/`MalformedRecord` for a record
        that does not replay and `ValueError` for one that has not ended."""
        deal = replay(record)
        result = deal.result()
        if result["status"] == "in_progress":
            raise ValueError(f"deal {number} has not ended: only finished deals are archived")
        contract = deal.contract
        declarers = tuple(int(seat) for seat in result["declarers"])
        points = _four(result["points"])
        made = None if result["status"] == "thrown_in" or not declarers else (
            sum(points[seat] for seat in declarers) > 0)
        seed, commitment = record.get("seed"), record.get("seed_commitment")
        return cls(
            number=number, record=dict(record), status=str(result["status"]),
            contract=result["contract"], contract_kind=contract.kind if contract is not None else None,
            declarers=declarers, tricks=_four(result["tricks"]), points=points, made=made,
            multiplier=deal.multiplier, seed=seed if isinstance(seed, str) else None,
            seed_commitment=commitment if isinstance(commitment, str) else None,
        )


def _four(values: Sequence[Any]) -> tuple[int, int, int, int]:
    return (int(values[0]), int(values[1]), int(values[2]), int(values[3]))


@dataclass(frozen=True, slots=True)
class ArchivedSession:
    """A session as the archive keeps it once it has left the live store. `session_id` is what makes
    a write idempotent; a live room plays one session, so the live server uses the room id.
    `complete` is False for a session stopped before its end condition (the host ended it, or no
    human came back in time): it keeps its finished deals and is never rated."""

    session_id: str
    room_id: str
    ruleset: str
    house_rules: JSON
    options: JSON  # what the host chose besides the house rules: name, length, bot, daily...
    seats: tuple[SeatEntry, SeatEntry, SeatEntry, SeatEntry]
    balances: tuple[int, int, int, int]
    started_at: float
    ended_at: float
    deals: tuple[DealEntry, ...] = ()
    complete: bool = True

    @classmethod
    def build(cls, *, session_id: str, room_id: str, ruleset: str, house_rules: Mapping[str, Any],
              options: Mapping[str, Any], seats: Sequence[SeatEntry], balances: Sequence[int],
              started_at: float, ended_at: float, records: Sequence[Mapping[str, Any]],
              complete: bool = True) -> ArchivedSession:
        """A session from its deal records (each replayed for its columns)."""
        if len(seats) != 4:
            raise ValueError("a session has four seats")
        return cls(session_id, room_id, ruleset, dict(house_rules), dict(options),
                   (seats[0], seats[1], seats[2], seats[3]), _four(balances), float(started_at),
                   float(ended_at), tuple(DealEntry.from_record(n, r) for n, r in enumerate(records)),
                   bool(complete))

    @property
    def played_deals(self) -> int:
        """Deals played to the end (thrown-in deals not counted)."""
        return sum(1 for deal in self.deals if deal.status == "complete")

    def ranks(self) -> tuple[int, int, int, int]:
        """Each seat's rank by balance: 1 + the number of seats with a strictly higher balance
        (equal balances share a rank)."""
        return _four([1 + sum(1 for other in self.balances if other > own) for own in self.balances])

    def records(self) -> list[JSON]:
        """The deal records, in order."""
        return [dict(deal.record) for deal in self.deals]


@dataclass(frozen=True, slots=True)
class SessionFigures:
    """One archived session without its deal records (`Archive.session_figures`): its seats, balances
    and each deal's figures, read in a few queries for a whole page of a player's history."""

    session_id: str
    room_id: str
    ruleset: str
    seats: tuple[SeatEntry, SeatEntry, SeatEntry, SeatEntry]
    balances: tuple[int, int, int, int]
    started_at: float
    ended_at: float
    complete: bool
    deals: tuple[DealFigures, ...]


@dataclass(frozen=True, slots=True)
class Rating:
    """A rated entity of one ruleset: a player (by hashed key) or a bot level. `ordinal` (mu - 3
    sigma) is what boards rank by."""

    ruleset: str
    kind: Literal["player", "bot"]
    ident: str  # the hashed player key, or the bot level
    name: str | None
    mu: float
    sigma: float
    sessions: int

    @property
    def ordinal(self) -> float:
        """The conservative estimate boards rank by."""
        return self.mu - 3 * self.sigma

    def public(self) -> JSON:
        """The rating as anyone may see it: a bot's level, never a player's hashed key."""
        return {"kind": self.kind, "name": self.name, "bot": self.ident if self.kind == "bot" else None,
                "mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal, "sessions": self.sessions}


@dataclass(frozen=True, slots=True)
class PlayedSession:
    """One session of a player's history: what they see of it (no other seat's player key)."""

    session_id: str
    room_id: str
    ruleset: str
    seat: int
    names: tuple[str | None, str | None, str | None, str | None]
    balance: int
    rank: int
    deals: int
    started_at: float
    ended_at: float


@dataclass(frozen=True, slots=True)
class PlayedDeal:
    """One deal of a player's history, enough to link to the replay viewer (session and number)."""

    session_id: str
    room_id: str
    number: int
    seat: int
    contract: str | None
    contract_kind: str | None
    declarer: bool
    made: bool | None
    points: int


@dataclass(frozen=True, slots=True)
class ContractStats:
    """Per contract kind: how often the player declared it and how often it was made."""

    declared: int
    made: int


@dataclass(frozen=True, slots=True)
class PlayerHistory:
    """A player's sessions (newest first), their statistics and their rating per ruleset."""

    sessions: tuple[PlayedSession, ...]
    deals: int  # deals played to the end, thrown-in deals not counted
    average_points: float | None  # per deal counted in `deals`; None without any
    contracts: Mapping[str, ContractStats] = field(default_factory=dict)  # contract kind -> stats
    ratings: Mapping[str, Rating] = field(default_factory=dict)  # ruleset -> rating

    def public(self) -> JSON:
        """The history as its player sees it (JSON): no player key, theirs or anyone's."""
        return {
            "sessions": [
                {"session_id": s.session_id, "room_id": s.room_id, "ruleset": s.ruleset, "seat": s.seat,
                 "names": list(s.names), "balance": s.balance, "rank": s.rank, "deals": s.deals,
                 "started_at": s.started_at, "ended_at": s.ended_at}
                for s in self.sessions],
            "statistics": {
                "deals": self.deals, "average_points": self.average_points,
                "contracts": {kind: {"declared": stats.declared, "made": stats.made}
                              for kind, stats in self.contracts.items()}},
            "ratings": {ruleset: rating.public() for ruleset, rating in self.ratings.items()},
        }
