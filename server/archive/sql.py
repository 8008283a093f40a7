"""The archive over SQL, once for both adapters: the queries are portable SQL (PostgreSQL and SQLite
3.35+ both have `ON CONFLICT` and `RETURNING`), written with `$1`-style parameters; each adapter
supplies connections, transactions and the lock that serialises rating updates.

Tables (server/archive/migrations/versions/): `sessions`, `seats` (one row per seat), `deals` (the
record and its query columns), `deal_seats` (tricks, points and declarer per seat: what a player's
statistics join on) and `ratings`."""

from __future__ import annotations

import json
import time
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

from .base import Archive
from .model import (
    JSON,
    ArchivedSession,
    ContractStats,
    DealEntry,
    DealFigures,
    PlayedDeal,
    PlayedSession,
    PlayerHistory,
    Rating,
    SeatEntry,
    SessionFigures,
)
from .ratings import Entity, Skill, is_rated, rate_session, seat_entities

Row = Mapping[str, Any]


class Tx:
    """One transaction's statements (an adapter's connection inside a transaction)."""

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        """The rows of a query."""
        raise NotImplementedError

    async def execute_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """One statement per parameter row."""
        raise NotImplementedError

    async def lock_ratings(self, ruleset: str) -> None:
        """Hold, until the transaction ends, the lock that serialises rating updates of a ruleset."""
        raise NotImplementedError


_INSERT_SESSION = """
INSERT INTO sessions (session_id, room_id, ruleset, house_rules, options, seat_names, balances,
                      started_at, ended_at, deal_count, played_deals, complete, archived_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
ON CONFLICT (session_id) DO NOTHING
RETURNING session_id"""
_INSERT_SEAT = """
INSERT INTO seats (session_id, seat, kind, name, player, bot, balance, rank)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"""
_INSERT_DEAL = """
INSERT INTO deals (session_id, number, record, status, contract, contract_kind, declarers, made,
                   multiplier, seed, seed_commitment)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"""
_INSERT_DEAL_SEAT = """
INSERT INTO deal_seats (session_id, number, seat, declarer, tricks, points)
VALUES ($1, $2, $3, $4, $5, $6)"""
_UPSERT_RATING = """
INSERT INTO ratings (ruleset, kind, ident, name, mu, sigma, ordinal, sessions, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8)
ON CONFLICT (ruleset, kind, ident) DO UPDATE SET
    name = excluded.name, mu = excluded.mu, sigma = excluded.sigma, ordinal = excluded.ordinal,
    sessions = ratings.sessions + 1, updated_at = excluded.updated_at"""
_RATING_COLUMNS = "ruleset, kind, ident, name, mu, sigma, sessions"


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class SqlArchive(Archive):
    """Everything but the connections (the adapters: server/archive/sqlite.py, postgres.py)."""

    @abstractmethod
    def _transaction(self) -> AbstractAsyncContextManager[Tx]:
        """A transaction that writes (committed at the end of the block, rolled back on an error)."""

    @abstractmethod
    async def _fetch(self, sql: str, *args: Any) -> list[Row]:
        """The rows of a read-only query."""

    # ------------------------------------------------------------------------------------------ write

    async def write_session(self, session: ArchivedSession) -> bool:
        """See `Archive.write_session`."""
        ranks = session.ranks()
        async with self._transaction() as tx:
            inserted = await tx.fetch(
                _INSERT_SESSION, session.session_id, session.room_id, session.ruleset,
                _dumps(session.house_rules), _dumps(session.options),
                _dumps([seat.name for seat in session.seats]), _dumps(list(session.balances)),
                session.started_at, session.ended_at, len(session.deals), session.played_deals,
                session.complete, time.time())
            if not inserted:
                return False
            await tx.execute_many(_INSERT_SEAT, [
                (session.session_id, number, seat.kind, seat.name, seat.player, seat.bot,
                 session.balances[number], ranks[number])
                for number, seat in enumerate(session.seats)])
            await tx.execute_many(_INSERT_DEAL, [
                (session.session_id, deal.number, _dumps(deal.record), deal.status, deal.contract,
                 deal.contract_kind, _dumps(list(deal.declarers)), deal.made, deal.multiplier, deal.seed,
                 deal.seed_commitment)
                for deal in session.deals])
            await tx.execute_many(_INSERT_DEAL_SEAT, [
                (session.session_id, deal.number, seat, seat in deal.declarers, deal.tricks[seat],
                 deal.points[seat])
                for deal in session.deals for seat in range(4)])
            await self._update_ratings(tx, session)
        return True

    async def _update_ratings(self, tx: Tx, session: ArchivedSession) -> None:
        if not is_rated(session):
            return
        entities = {entity: number for number, entity in enumerate(seat_entities(session))
                    if entity is not None}
        await tx.lock_ratings(session.ruleset)
        current: dict[Entity, Skill] = {}
        for kind, ident in entities:
            for row in await tx.fetch("SELECT mu, sigma FROM ratings WHERE ruleset = $1 AND kind = $2 "
                                      "AND ident = $3", session.ruleset, kind, ident):
                current[(kind, ident)] = Skill(float(row["mu"]), float(row["sigma"]))
        updated = rate_session(session, current)
        now = time.time()
        await tx.execute_many(_UPSERT_RATING, [
            (session.ruleset, kind, ident,
             session.seats[entities[(kind, ident)]].name if kind == "player" else ident,
             skill.mu, skill.sigma, skill.mu - 3 * skill.sigma, now)
            for (kind, ident), skill in sorted(updated.items())])

    # ------------------------------------------------------------------------------------------- read

    async def read_session(self, session_id: str) -> ArchivedSession | None:
        """See `Archive.read_session`."""
        rows = await self._fetch("SELECT * FROM sessions WHERE session_id = $1", session_id)
        return await self._session_from(rows[0]) if rows else None

    async def room_sessions(self, room_id: str) -> list[ArchivedSession]:
        """See `Archive.room_sessions`."""
        rows = await self._fetch("SELECT * FROM sessions WHERE room_id = $1 ORDER BY started_at, session_id",
                                 room_id)
        return [await self._session_from(row) for row in rows]

    async def session_ids(self) -> list[str]:
        """See `Archive.session_ids`."""
        return [str(row["session_id"]) for row in
                await self._fetch("SELECT session_id FROM sessions ORDER BY started_at, session_id")]

    async def _session_from(self, row: Row) -> ArchivedSession:
        session_id = row["session_id"]
        seats = [SeatEntry.from_json(seat) for seat in await self._fetch(
            "SELECT kind, name, player, bot FROM seats WHERE session_id = $1 ORDER BY seat", session_id)]
        per_deal = _per_deal(await self._fetch(
            "SELECT number, tricks, points FROM deal_seats WHERE session_id = $1 ORDER BY number, seat",
            session_id))
        deals = []
        for deal in await self._fetch("SELECT * FROM deals WHERE session_id = $1 ORDER BY number",
                                      session_id):
            deals.append(DealEntry(
                **_deal_columns(deal, per_deal[int(deal["number"])]), record=json.loads(deal["record"]),
                multiplier=int(deal["multiplier"]), seed=deal["seed"],
                seed_commitment=deal["seed_commitment"]))
        balances = json.loads(row["balances"])
        return ArchivedSession(
            session_id=str(session_id), room_id=str(row["room_id"]), ruleset=str(row["ruleset"]),
            house_rules=json.loads(row["house_rules"]), options=json.loads(row["options"]),
            seats=(seats[0], seats[1], seats[2], seats[3]), balances=_four(balances),
            started_at=float(row["started_at"]), ended_at=float(row["ended_at"]), deals=tuple(deals),
            complete=bool(row["complete"]))

    async def session_figures(self, session_ids: Sequence[str]) -> dict[str, SessionFigures]:
        """See `Archive.session_figures`: four queries, none reading a deal record."""
        ids = list(dict.fromkeys(session_ids))
        if not ids:
            return {}
        among = "session_id IN (" + ", ".join(f"${n}" for n in range(1, len(ids) + 1)) + ")"
        seats: dict[str, list[SeatEntry]] = {}
        for seat in await self._fetch(f"SELECT session_id, kind, name, player, bot FROM seats WHERE {among} "
                                      "ORDER BY session_id, seat", *ids):
            seats.setdefault(str(seat["session_id"]), []).append(SeatEntry.from_json(seat))
        per_deal: dict[str, dict[int, list[Row]]] = {}
        for row in await self._fetch(f"SELECT session_id, number, tricks, points FROM deal_seats "
                                     f"WHERE {among} ORDER BY session_id, number, seat", *ids):
            per_deal.setdefault(str(row["session_id"]), {}).setdefault(int(row["number"]), []).append(row)
        deals: dict[str, list[DealFigures]] = {}
        for deal in await self._fetch(
                f"SELECT session_id, number, status, contract, contract_kind, declarers, made FROM deals "
                f"WHERE {among} ORDER BY session_id, number", *ids):
            session_id = str(deal["session_id"])
            per_seat = per_deal[session_id][int(deal["number"])]
            deals.setdefault(session_id, []).append(DealFigures(**_deal_columns(deal, per_seat)))
        found = {}
        for row in await self._fetch("SELECT session_id, room_id, ruleset, balances, started_at, ended_at, "
                                     f"complete FROM sessions WHERE {among}", *ids):
            session_id = str(row["session_id"])
            held = seats[session_id]
            found[session_id] = SessionFigures(
                session_id=session_id, room_id=str(row["room_id"]), ruleset=str(row["ruleset"]),
                seats=(held[0], held[1], held[2], held[3]), balances=_four(json.loads(row["balances"])),
                started_at=float(row["started_at"]), ended_at=float(row["ended_at"]),
                complete=bool(row["complete"]), deals=tuple(deals.get(session_id, ())))
        return found

    async def deal_record(self, session_id: str, number: int) -> JSON | None:
        """See `Archive.deal_record`."""
        rows = await self._fetch("SELECT record FROM deals WHERE session_id = $1 AND number = $2",
                                 session_id, number)
        return dict(json.loads(rows[0]["record"])) if rows else None

    async def player_history(self, player: str, limit: int = 50) -> PlayerHistory:
        """See `Archive.player_history`."""
        sessions = [
            PlayedSession(
                session_id=str(row["session_id"]), room_id=str(row["room_id"]), ruleset=str(row["ruleset"]),
                seat=int(row["seat"]), names=_four_names(json.loads(row["seat_names"])),
                balance=int(row["balance"]), rank=int(row["rank"]), deals=int(row["deal_count"]),
                started_at=float(row["started_at"]), ended_at=float(row["ended_at"]))
            for row in await self._fetch(
                "SELECT x.session_id, x.room_id, x.ruleset, x.seat_names, x.deal_count, x.started_at, "
                "x.ended_at, s.seat, s.balance, s.rank FROM seats s JOIN sessions x "
                "ON x.session_id = s.session_id WHERE s.player = $1 "
                "ORDER BY x.ended_at DESC, x.session_id, s.seat LIMIT $2", player, limit)]
        totals = (await self._fetch(
            "SELECT COUNT(*) AS deals, AVG(ds.points) AS average FROM deal_seats ds "
            "JOIN seats s ON s.session_id = ds.session_id AND s.seat = ds.seat "
            "JOIN deals d ON d.session_id = ds.session_id AND d.number = ds.number "
            "WHERE s.player = $1 AND d.status = 'complete'", player))[0]
        contracts = {
            str(row["contract_kind"]): ContractStats(int(row["declared"]), int(row["made"] or 0))
            for row in await self._fetch(
                "SELECT d.contract_kind, COUNT(*) AS declared, "
                "SUM(CASE WHEN d.made THEN 1 ELSE 0 END) AS made FROM deal_seats ds "
                "JOIN seats s ON s.session_id = ds.session_id AND s.seat = ds.seat "
                "JOIN deals d ON d.session_id = ds.session_id AND d.number = ds.number "
                "WHERE s.player = $1 AND ds.declarer AND d.contract_kind IS NOT NULL "
                "GROUP BY d.contract_kind ORDER BY d.contract_kind", player)}
        ratings = {rating.ruleset: rating for rating in map(_rating_from, await self._fetch(
            f"SELECT {_RATING_COLUMNS} FROM ratings WHERE kind = 'player' AND ident = $1 ORDER BY ruleset",
            player))}
        average = totals["average"]
        return PlayerHistory(tuple(sessions), int(totals["deals"]),
                             None if average is None else float(average), contracts, ratings)

    async def player_deals(self, player: str, limit: int = 200) -> list[PlayedDeal]:
        """See `Archive.player_deals`."""
        return [
            PlayedDeal(session_id=str(row["session_id"]), room_id=str(row["room_id"]),
                       number=int(row["number"]), seat=int(row["seat"]), contract=row["contract"],
                       contract_kind=row["contract_kind"], declarer=bool(row["declarer"]),
                       made=None if row["made"] is None else bool(row["made"]), points=int(row["points"]))
            for row in await self._fetch(
                "SELECT x.session_id, x.room_id, d.number, s.seat, d.contract, d.contract_kind, ds.declarer, "
                "d.made, ds.points FROM seats s JOIN sessions x ON x.session_id = s.session_id "
                "JOIN deals d ON d.session_id = s.session_id "
                "JOIN deal_seats ds ON ds.session_id = d.session_id AND ds.number = d.number "
                "AND ds.seat = s.seat WHERE s.player = $1 "
                "ORDER BY x.ended_at DESC, x.session_id, d.number DESC LIMIT $2", player, limit)]

    async def rating(self, ruleset: str, kind: str, ident: str) -> Rating | None:
        """See `Archive.rating`."""
        rows = await self._fetch(f"SELECT {_RATING_COLUMNS} FROM ratings WHERE ruleset = $1 AND kind = $2 "
                                 "AND ident = $3", ruleset, kind, ident)
        return _rating_from(rows[0]) if rows else None

    async def leaderboard(self, ruleset: str, limit: int = 50, humans_only: bool = False) -> list[Rating]:
        """See `Archive.leaderboard`."""
        only = " AND kind = 'player'" if humans_only else ""
        return [_rating_from(row) for row in await self._fetch(
            f"SELECT {_RATING_COLUMNS} FROM ratings WHERE ruleset = $1{only} "
            "ORDER BY ordinal DESC, kind, ident LIMIT $2", ruleset, limit)]


def _per_deal(rows: list[Row]) -> dict[int, list[Row]]:
    """`deal_seats` rows (ordered by number and seat) by deal number."""
    per_deal: dict[int, list[Row]] = {}
    for row in rows:
        per_deal.setdefault(int(row["number"]), []).append(row)
    return per_deal


def _deal_columns(deal: Row, per_seat: Sequence[Row]) -> dict[str, Any]:
    """A `deals` row and its four `deal_seats` rows as the fields of a deal's figures (`DealFigures`)."""
    return {"number": int(deal["number"]), "status": str(deal["status"]), "contract": deal["contract"],
            "contract_kind": deal["contract_kind"], "declarers": tuple(json.loads(deal["declarers"])),
            "tricks": _four([seat["tricks"] for seat in per_seat]),
            "points": _four([seat["points"] for seat in per_seat]),
            "made": None if deal["made"] is None else bool(deal["made"])}


def _four(values: Sequence[Any]) -> tuple[int, int, int, int]:
    return (int(values[0]), int(values[1]), int(values[2]), int(values[3]))


def _four_names(values: Sequence[Any]) -> tuple[str | None, str | None, str | None, str | None]:
    names = [None if value is None else str(value) for value in values]
    return (names[0], names[1], names[2], names[3])


def _rating_from(row: Row) -> Rating:
    return Rating(str(row["ruleset"]), "player" if row["kind"] == "player" else "bot", str(row["ident"]),
                  row["name"], float(row["mu"]),
                  float(row["sigma"]), int(row["sessions"]))

