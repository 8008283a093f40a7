"""Prometheus metrics of one server (`/metrics`), through `prometheus_client`.

Each `WhistServer` owns a `Metrics` with its own `CollectorRegistry`, so several servers in one process
(the tests) keep separate counts. Every metric is defined here; docs/operations.md lists them.

The connection, HTTP and store boundaries record their figures themselves. The room layer records the
rest through the small `observe_*` / `count_*` methods below: a human's action (and its action-to-push
time, the `act` request's) in `server/connection.py`, a bot's action, its decision time and its decision-to-
push time in the bot driver (`server/live/bots.py`, which sees a `Metrics` as its `BotObserver`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics
from prometheus_client.exposition import generate_latest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .leaderboard import LeaderboardLine
from .store.base import JSON, Store, StoredRoom, VersionConflictError

# The classic text format, which `generate_latest` writes and every Prometheus version reads.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
CONNECTION_KINDS = ("player", "spectator", "lobby")
# Latency buckets (seconds) from a fraction of a millisecond, where a quiet server answers, to seconds.
FAST_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Errors of the store that mean Redis could not be reached (rather than a refused write).
_UNREACHABLE = (RedisConnectionError, RedisTimeoutError, ConnectionError, TimeoutError, OSError)

# No `_created` series beside every counter and histogram: they double the page and nobody alerts on them.
disable_created_metrics()  # type: ignore[no-untyped-call]


class Metrics:
    """Every metric of the server, in one registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.rooms = Gauge("whist_rooms", "Rooms held in memory, by kind (daily, listed, private) and "
                           "status (waiting, playing, between_deals, over).", ["kind", "status"], registry=r)
        self.connections = Gauge("whist_connections", "Open WebSocket connections, by kind: player (holds "
                                 "a seat), spectator (in a room without a seat), lobby (in no room).",
                                 ["kind"], registry=r)
        self.connections_opened = Counter("whist_connections_opened_total",
                                          "WebSocket connections accepted.", registry=r)
        self.connections_closed = Counter("whist_connections_closed_total",
                                          "WebSocket connections ended, by close code.", ["code"], registry=r)
        self.requests = Counter("whist_requests_total", "Requests answered, by request type (`invalid`: "
                                "not a valid request) and outcome (ok, error).", ["type", "outcome"],
                                registry=r)
        self.request_seconds = Histogram("whist_request_seconds", "Time inside the server from a frame "
                                         "read to its answer queued.", buckets=FAST_BUCKETS, registry=r)
        self.errors = Counter("whist_errors_total", "Error answers sent, by error code.", ["code"],
                              registry=r)
        self.actions = Counter("whist_actions_total", "Deal actions applied (calls and cards), by who "
                               "took them (human, bot). rate() of it is actions per second.", ["by"],
                               registry=r)
        self.action_to_push = Histogram("whist_action_to_push_seconds", "From an action received (or a bot "
                                        "decision made) to the pushes of its outcome queued for every "
                                        "connection of the room.", buckets=FAST_BUCKETS, registry=r)
        self.bot_decision = Histogram("whist_bot_decision_seconds", "Time a bot takes to choose an "
                                      "action, by bot kind.", ["bot"], buckets=FAST_BUCKETS, registry=r)
        self.store_seconds = Histogram("whist_store_operation_seconds", "Store calls, by operation "
                                       "(save, load, read_log, lobby, room_ids, ping).", ["operation"],
                                       buckets=FAST_BUCKETS, registry=r)
        self.store_conflicts = Counter("whist_store_conflicts_total", "Versioned writes refused because "
                                       "another writer changed the room first.", registry=r)
        self.store_errors = Counter("whist_store_errors_total", "Store calls that failed (not conflicts), "
                                    "by operation.", ["operation"], registry=r)
        self.redis_reconnects = Counter("whist_redis_reconnects_total", "Times the store answered again "
                                        "after Redis could not be reached.", registry=r)
        self.rate_limit_closes = Counter("whist_rate_limit_closes_total", "Connections closed for flooding "
                                         "or bad frames (close code 1008).", registry=r)
        self.limit_refusals = Counter("whist_limit_refusals_total", "Connections or requests refused by a "
                                      "limit: connections_per_address, rooms_per_address, idle, "
                                      "not_reading.", ["limit"], registry=r)
        self.http_requests = Counter("whist_http_requests_total", "Plain HTTP requests, by endpoint "
                                     "(health, metrics, static, not_found) and status.",
                                     ["endpoint", "status"], registry=r)
        self.gc_full_passes = Histogram("whist_gc_full_pass_seconds", "Full passes of the cyclic garbage "
                                        "collector (the event loop stands still meanwhile), by reason: "
                                        "schedule, memory (server/gc_policy.py).", ["reason"],
                                        buckets=FAST_BUCKETS, registry=r)
        self.gc_collected = Counter("whist_gc_full_pass_collected_total", "Objects the full passes of the "
                                    "garbage collector freed.", registry=r)
        self.loop_lag = Histogram("whist_event_loop_lag_seconds", "How late the event loop ran a "
                                  "timer due every 50 ms (server/loop_lag.py): the wait every frame, "
                                  "push and store answer had at that moment.", buckets=FAST_BUCKETS,
                                  registry=r)
        self.archive_writes = Counter("whist_archive_writes_total", "Attempts to write a finished session "
                                      "to the archive, by result: written, already (archived before: "
                                      "nothing changed), failed (retried with backoff).", ["result"],
                                      registry=r)
        self.archive_write_seconds = Histogram("whist_archive_write_seconds", "Time of one archive write "
                                               "attempt (the session, its deals and the ratings, one "
                                               "transaction), whatever its result.", buckets=FAST_BUCKETS,
                                               registry=r)
        self.archive_pending = Gauge("whist_archive_pending", "Finished sessions waiting to be written to "
                                     "the archive (they stay in the live store meanwhile).", registry=r)
        for result in ("written", "already", "failed"):
            self.archive_writes.labels(result)
        self._room_labels: set[tuple[str, str]] = set()
        for kind in CONNECTION_KINDS:
            self.connections.labels(kind).set(0)
        for by in ("human", "bot"):
            self.actions.labels(by)

    # ------------------------------------------------------------ for the room layer

    def count_action(self, by: str) -> None:
        """One deal action applied; `by` is "human" or "bot"."""
        self.actions.labels(by).inc()

    def observe_action_to_push(self, seconds: float) -> None:
        """From an action's arrival (or a bot's decision) to its pushes queued."""
        self.action_to_push.observe(seconds)

    def observe_gc_full_pass(self, reason: str, seconds: float, collected: int) -> None:
        """One full pass of the garbage collector: why, how long the process stood still, what it freed."""
        self.gc_full_passes.labels(reason).observe(seconds)
        self.gc_collected.inc(collected)

    def observe_loop_lag(self, seconds: float) -> None:
        """How late one timer of the event loop fired."""
        self.loop_lag.observe(seconds)

    def observe_archive_write(self, result: str, seconds: float) -> None:
        """One archive write attempt: written, already or failed, and how long it took."""
        self.archive_writes.labels(result).inc()
        self.archive_write_seconds.observe(seconds)

    def observe_bot_decision(self, bot: str, seconds: float) -> None:
        """How long a bot of kind `bot` took to decide."""
        self.bot_decision.labels(bot).observe(seconds)

    # ------------------------------------------------------------ boundaries

    def count_error(self, code: str) -> None:
        """An `error` answer with this code went out."""
        self.errors.labels(code).inc()

    def set_connections(self, kinds: Iterable[str]) -> None:
        """The open connections, one kind each."""
        counts = dict.fromkeys(CONNECTION_KINDS, 0)
        for kind in kinds:
            counts[kind] = counts.get(kind, 0) + 1
        for kind, count in counts.items():
            self.connections.labels(kind).set(count)

    def set_rooms(self, rooms: Iterable[tuple[str, str]]) -> None:
        """The rooms in memory, one (kind, status) each (pairs seen before and now absent go to 0)."""
        counts: dict[tuple[str, str], int] = {}
        for labels in rooms:
            counts[labels] = counts.get(labels, 0) + 1
        for labels in self._room_labels:
            counts.setdefault(labels, 0)
        self._room_labels.update(counts)
        for (kind, status), count in counts.items():
            self.rooms.labels(kind, status).set(count)

    def exposition(self) -> bytes:
        """The Prometheus text format of every metric."""
        return generate_latest(self.registry)


class InstrumentedStore(Store):
    """A store that times every call, counts conflicts and errors, and notices Redis coming back."""

    def __init__(self, inner: Store, metrics: Metrics) -> None:
        self.inner = inner
        self.metrics = metrics
        self.kind = inner.kind
        self.unreachable = False  # the last call found the store unreachable

    async def _timed(self, operation: str, call: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        try:
            result = await call()
        except VersionConflictError:
            self.metrics.store_conflicts.inc()
            self._reached()
            raise
        except Exception as failure:
            self.metrics.store_errors.labels(operation).inc()
            if isinstance(failure, _UNREACHABLE):
                self.unreachable = True
            raise
        finally:
            self.metrics.store_seconds.labels(operation).observe(time.perf_counter() - started)
        if operation == "ping" and result is False:
            self.metrics.store_errors.labels(operation).inc()
            self.unreachable = True
        else:
            self._reached()
        return result

    def _reached(self) -> None:
        if self.unreachable:
            self.unreachable = False
            self.metrics.redis_reconnects.inc()

    async def save(
        self, room_id: str, state: JSON, expected_version: int, log: list[JSON], lobby_entry: JSON | None
    ) -> int:
        """The inner store's save, timed."""
        version: int = await self._timed(
            "save", lambda: self.inner.save(room_id, state, expected_version, log, lobby_entry))
        return version

    async def load(self, room_id: str) -> StoredRoom | None:
        """The inner store's load, timed."""
        stored: StoredRoom | None = await self._timed("load", lambda: self.inner.load(room_id))
        return stored

    async def read_log(self, room_id: str) -> list[JSON]:
        """The inner store's read_log, timed."""
        entries: list[JSON] = await self._timed("read_log", lambda: self.inner.read_log(room_id))
        return entries

    async def lobby(self) -> dict[str, JSON]:
        """The inner store's lobby, timed."""
        entries: dict[str, JSON] = await self._timed("lobby", self.inner.lobby)
        return entries

    async def room_ids(self) -> list[str]:
        """The inner store's room ids, timed."""
        ids: list[str] = await self._timed("room_ids", self.inner.room_ids)
        return ids

    async def daily_secret(self) -> str:
        """The inner store's daily secret, timed."""
        secret: str = await self._timed("daily_secret", self.inner.daily_secret)
        return secret

    async def leaderboard_line(self, day: str, room_id: str) -> LeaderboardLine | None:
        """The inner store's leaderboard line, timed."""
        line: LeaderboardLine | None = await self._timed(
            "leaderboard_line", lambda: self.inner.leaderboard_line(day, room_id))
        return line

    async def write_leaderboard_line(self, day: str, line: LeaderboardLine) -> None:
        """The inner store's leaderboard write, timed."""
        await self._timed("write_leaderboard_line", lambda: self.inner.write_leaderboard_line(day, line))

    async def leaderboard_top(self, day: str, limit: int) -> tuple[list[LeaderboardLine], int]:
        """The inner store's leaderboard top, timed."""
        top: tuple[list[LeaderboardLine], int] = await self._timed(
            "leaderboard_top", lambda: self.inner.leaderboard_top(day, limit))
        return top

    async def ping(self) -> bool:
        """The inner store's ping, timed (False counts as unreachable)."""
        answered: bool = await self._timed("ping", self.inner.ping)
        return answered

    async def claim_daily_player(self, day: str, player: str) -> bool:
        """The inner store's claim, timed."""
        first: bool = await self._timed("claim_daily_player",
                                        lambda: self.inner.claim_daily_player(day, player))
        return first

    async def write_deal_result(self, day: str, deal: str, room_id: str, result: JSON) -> None:
        """The inner store's deal result write, timed."""
        await self._timed("write_deal_result",
                          lambda: self.inner.write_deal_result(day, deal, room_id, result))

    async def deal_results(self, day: str, deal: str) -> dict[str, JSON]:
        """The inner store's deal results, timed."""
        results: dict[str, JSON] = await self._timed("deal_results",
                                                     lambda: self.inner.deal_results(day, deal))
        return results

    async def append_chat(self, room_id: str, line: JSON, keep: int) -> bool:
        """The inner store's chat append, timed."""
        kept: bool = await self._timed("append_chat", lambda: self.inner.append_chat(room_id, line, keep))
        return kept

    async def chat_lines(self, room_id: str) -> list[JSON]:
        """The inner store's chat lines, timed."""
        lines: list[JSON] = await self._timed("chat_lines", lambda: self.inner.chat_lines(room_id))
        return lines

    async def credit_seat(self, room_id: str, seat: int, player: str | None) -> bool:
        """The inner store's seat credit, timed."""
        written: bool = await self._timed("credit_seat",
                                          lambda: self.inner.credit_seat(room_id, seat, player))
        return written

    async def seat_credits(self, room_id: str) -> dict[int, str]:
        """The inner store's seat credits, timed."""
        credits: dict[int, str] = await self._timed("seat_credits", lambda: self.inner.seat_credits(room_id))
        return credits

    async def retain(self, room_id: str, session: int, seconds: float) -> bool:
        """The inner store's retain, timed."""
        done: bool = await self._timed("retain", lambda: self.inner.retain(room_id, session, seconds))
        return done

    async def archived(self, room_id: str) -> int | None:
        """The inner store's archived mark, timed."""
        session: int | None = await self._timed("archived", lambda: self.inner.archived(room_id))
        return session

    async def persist(self, room_id: str) -> None:
        """The inner store's persist, timed."""
        await self._timed("persist", lambda: self.inner.persist(room_id))

    async def replicated(self, room_id: str | None = None) -> bool:
        """The inner store's answer, timed."""
        held: bool = await self._timed("replicated", lambda: self.inner.replicated(room_id))
        return held

    async def close(self) -> None:
        """Close the inner store."""
        await self.inner.close()

    def __getattr__(self, name: str) -> Any:
        # Anything else a store offers (test helpers, Redis specifics) goes to the inner store untimed.
        return getattr(self.inner, name)
