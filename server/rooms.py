"""Rooms: four seats, spectators, bots, the session, and the one filter every outgoing frame passes.

A `Room` lives in one server process while anyone uses it; its state is written to the store after
every change with a versioned write, so a restarted process rebuilds it exactly (`RoomManager.get`
replays the room's event log). All
changes to a room run under its lock, one at a time: validate, change, store, then push to every
connection in the room. A request that fails validation changes nothing.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import hashlib
import hmac
import importlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator
from typing import Any, Protocol

from .bots import Bot, BotError, bot_names, get_bot
from .protocol import CreateRoom, ProtocolError
from .rules import IllegalAction, MalformedAction, RulesError, Session, get_ruleset, ruleset_names
from .rules.deal import Deal
from .store import Store, VersionConflictError

log = logging.getLogger("whist.rooms")

JSON = dict[str, Any]
SEATS = (0, 1, 2, 3)
BOT_BUDGET_MS = 20.0
BOT_SLOTS = 4  # bot moves in progress at once, over all tables
# How long a bot move waits for the human requests in progress to finish before it goes anyway (so a
# stream of requests cannot stop the bots).
BOT_YIELD_SECONDS = 0.05
BOT_RETRY_SECONDS = 1.0  # after a bot move the store did not take
# Refusals of an action that may come from a stale view: the refusal comes with a fresh `state`.
STALE_CODES = frozenset(("not_your_turn", "illegal_action", "conflict", "store_unavailable"))

with contextlib.suppress(ImportError):  # the heuristic bot registers itself when its module exists
    importlib.import_module("server.bots.heuristic")


def default_bot() -> str:
    """The bot a room uses unless told otherwise."""
    return "heuristic" if "heuristic" in bot_names() else "random"


def current_deal_index(session: Session) -> int:
    """The 0-based number of the deal on the table (the session counts a deal once it has ended)."""
    return session.deal_number - 1 if session.deal.finished else session.deal_number


def hash_token(token: str) -> str:
    """Tokens are stored hashed: the store never holds a usable token."""
    return hashlib.sha256(token.encode()).hexdigest()


class Peer(Protocol):
    """One client connection, as the rooms see it."""

    name: str
    room: Room | None
    participant: str | None  # hash of the token this connection presented in its room
    token: str | None  # that token itself, kept only in memory to answer a later `join`
    wants_events: bool  # whether to push `events` messages (the `hello` option)

    def push(self, message: JSON) -> None:
        """Queue a message object for this connection (never blocks)."""


# ------------------------------------------------------------------------------------------- the filter


def hidden_cards(deal: Deal, seat: int | None) -> set[str]:
    """The cards `seat` (None: a spectator) may not see now: other seats' hidden hands and discards."""
    if deal.finished:
        return set()
    exposed = set(deal.exposed)
    hidden: set[str] = set()
    public = {deal.turn_up} if deal.turn_up is not None else set()  # the turn-up is public until played
    for other in SEATS:
        if other == seat:
            continue
        if other not in exposed:
            hidden |= deal.hands[other]
        discard = deal.discards.get(other)
        if discard is not None:
            hidden.add(discard)
    return hidden - public


def _mentions(value: Any, cards: set[str]) -> bool:
    if isinstance(value, str):
        return value in cards or any(word in cards for word in value.split())
    if isinstance(value, dict):
        # Names are chosen by players ("AS" is a valid name), not cards.
        return any(_mentions(item, cards) for key, item in value.items() if key != "name")
    if isinstance(value, list | tuple):
        return any(_mentions(item, cards) for item in value)
    return False


def filter_for_recipient(
    room: Room, seat: int | None, host: bool, message: JSON, views: dict[int | None, JSON] | None = None
) -> JSON | None:
    """THE per-recipient filter: every push (`state`, `events`) to a room's connection passes here.

    Answers to requests (`ok`) carry no view and no card of a deal in progress (`get_records` lists
    finished deals only), and lobby pushes carry room summaries only.

    A `state` message gets the recipient's own view (`deal.view(seat)`, or the public view), built
    here and nowhere else (`views` caches them by seat during one broadcast: many spectators share
    one). Any other message is checked against the cards the recipient may not see; one that would
    reveal a hidden card is dropped (and logged as a bug) instead of sent.
    """
    deal = room.session.deal if room.session is not None else None
    if message.get("type") == "state":
        view: JSON | None = None
        if deal is not None:
            if views is None:
                view = deal.view(seat)
            else:
                view = views.get(seat)
                if view is None:
                    view = views[seat] = deal.view(seat)
        return {
            "type": "state",
            "room_id": room.room_id,
            "you": {"seat": seat, "host": host, "spectator": seat is None},
            "room": message["room"],
            "view": view,
        }
    if deal is not None and _mentions(message.get("events", []), hidden_cards(deal, seat)):
        log.error("dropped a %s message to seat %s: it names a hidden card", message.get("type"), seat)
        return None
    return message


# ------------------------------------------------------------------------------------------- rooms


class BotScheduler:
    """Who goes first: human requests before bot moves.

    Bot moves run through a few slots (`slots`), whatever the number of tables, so they never fill
    the event loop's ready queue: the others wait in line here, costing nothing. A free slot goes to
    the next bot in line only while no human request is changing a room (validate, store, push), or
    once the humans have held the bots back for `yield_seconds` (so a stream of requests cannot stop
    them). A human's action thus shares the event loop and the store's next pipeline with at most the
    few bot moves already under way, and the bots in line are woken one at a time, never all at once.
    """

    def __init__(self, slots: int = BOT_SLOTS, yield_seconds: float = BOT_YIELD_SECONDS) -> None:
        self.free = slots
        self.yield_seconds = yield_seconds
        self.humans_busy = 0
        self._line: collections.deque[asyncio.Future[None]] = collections.deque()
        self._held_since: float | None = None  # when humans began holding back a bot in line
        self._overdue: asyncio.TimerHandle | None = None

    @contextlib.contextmanager
    def human_request(self) -> Iterator[None]:
        """Mark a human's request as in progress for the duration of the block."""
        self.humans_busy += 1
        try:
            yield
        finally:
            self.humans_busy -= 1
            if self.humans_busy == 0:
                self._hand_out()

    @contextlib.asynccontextmanager
    async def bot_move(self) -> AsyncIterator[None]:
        """Hold a bot slot for one move (waiting in line for it, behind the human requests)."""
        if self.free > 0 and not self._line and not self.humans_busy:
            self.free -= 1
        else:
            turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._line.append(turn)
            self._hand_out()
            try:
                await turn
            except asyncio.CancelledError:
                if turn.done() and not turn.cancelled():
                    self._release()  # the slot was ours already: pass it on
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        self.free += 1
        self._hand_out()

    def _hand_out(self) -> None:
        """Give free slots to the bots in line, unless humans are being served (and not for too long)."""
        while self._line and self._line[0].done():
            self._line.popleft()  # cancelled while waiting
        if not self._line or self.free <= 0:
            return
        loop = asyncio.get_running_loop()
        if self.humans_busy:
            if self._held_since is None:
                self._held_since = loop.time()
            if loop.time() - self._held_since < self.yield_seconds:
                if self._overdue is None:
                    self._overdue = loop.call_at(self._held_since + self.yield_seconds, self._on_overdue)
                return
        self._held_since = None
        if self._overdue is not None:
            self._overdue.cancel()
            self._overdue = None
        while self._line and self.free > 0:
            turn = self._line.popleft()
            if not turn.done():
                self.free -= 1
                turn.set_result(None)

    def _on_overdue(self) -> None:
        self._overdue = None
        self._hand_out()


class BotDecision:
    """One pending bot decision: the bot, the seat's view, the seed."""

    def __init__(self, kind: str, bot: Bot, view: JSON, seed: str) -> None:
        self.kind = kind
        self.bot = bot
        self.view = view
        self.seed = seed

    def decide(self) -> str:
        """Ask the bot (the result goes through the same validated path as a human's action)."""
        try:
            return str(self.bot.decide(self.view, self.seed, BOT_BUDGET_MS))
        except BotError as problem:
            raise ProtocolError("internal_error", f"bot {self.kind} failed: {problem}") from None



class Room:
    """One table. `state` is what the store keeps; `session` is the live rules engine object."""

    def __init__(
        self, manager: RoomManager, state: JSON, version: int, session: Session | None = None
    ) -> None:
        self.manager = manager
        self.state = state
        self.version = version
        self.session = session
        self.peers: set[Peer] = set()
        self.lock = asyncio.Lock()
        now = time.monotonic()
        # Humans are disconnected until they come back (after a restart: since the room was loaded).
        self.disconnected_since: dict[int, float] = {
            seat: now for seat in SEATS if self.seats[seat]["kind"] == "human"
        }
        self.bot_task: asyncio.Task[None] | None = None
        self.timers: list[asyncio.TimerHandle] = []
        self.last_lobby_entry: JSON | None = None
        self.stale = False  # a write failed: reload from the store before the next change

    # ---------------------------------------------------------------- facts

    @property
    def room_id(self) -> str:
        """The room's id."""
        return str(self.state["room_id"])

    @property
    def seats(self) -> list[JSON]:
        """The four seats: kind (human/bot/empty), name, participant (token hash), bot kind."""
        seats: list[JSON] = self.state["seats"]
        return seats

    @property
    def started(self) -> bool:
        """Whether the host has started the session."""
        return self.session is not None

    @property
    def over(self) -> bool:
        """Whether the session is over (played out, or ended by the host)."""
        return bool(self.state.get("ended")) or (self.session is not None and bool(self.session.over))

    @property
    def status(self) -> str:
        """waiting, playing, between_deals or over."""
        if self.over:
            return "over"
        if self.session is None:
            return "waiting"
        return "between_deals" if self.session.deal.finished else "playing"

    def seat_of(self, participant: str | None) -> int | None:
        """The seat a participant (token hash) holds, if any."""
        if participant is None:
            return None
        for seat in SEATS:
            if self.seats[seat]["kind"] == "human" and self.seats[seat]["participant"] == participant:
                return seat
        return None

    def is_host(self, participant: str | None) -> bool:
        """Whether the participant holds host rights."""
        return participant is not None and participant == str(self.state.get("host"))

    def connected(self, seat: int) -> bool:
        """Whether a human seat's player has a live connection here (bot seats count as connected)."""
        entry = self.seats[seat]
        if entry["kind"] != "human":
            return bool(entry["kind"] == "bot")
        return any(peer.participant == entry["participant"] for peer in self.peers)

    def bot_playing(self, seat: int) -> bool:
        """Whether a bot plays this seat now: no human holds it, or its player is gone past the grace."""
        if not self.started:
            return bool(self.seats[seat]["kind"] == "bot")
        if self.seats[seat]["kind"] != "human":
            return True
        if self.connected(seat):
            return False
        since = self.disconnected_since.get(seat)
        return since is not None and time.monotonic() - since >= float(self.state["grace_seconds"])

    def spectators(self) -> int:
        """Connections in the room that hold no seat."""
        return sum(1 for peer in self.peers if self.seat_of(peer.participant) is None)

    def room_info(self) -> JSON:
        """The public facts of the room (the `room` of a `state` push)."""
        session = self.session
        ready = set(self.state.get("ready", []))
        return {
            "room_id": self.room_id,
            "name": self.state["name"],
            "ruleset": self.state["ruleset"],
            "house_rules": session.house_rules if session else self.state["house_rules"],
            "listed": self.state["listed"],
            "bot": self.state["bot"],
            "session": dict(self.state["session_length"]),
            "grace_seconds": self.state["grace_seconds"],
            "status": self.status,
            "host_seat": self.seat_of(self.state.get("host")),
            "seats": [
                {
                    "seat": seat,
                    "kind": self.seats[seat]["kind"],
                    "name": self.seats[seat]["name"],
                    "connected": self.connected(seat),
                    "bot_playing": self.bot_playing(seat),
                    "ready": seat in ready or (self.seats[seat]["kind"] != "human" and self.started),
                }
                for seat in SEATS
            ],
            "spectators": self.spectators(),
            "deal_number": current_deal_index(session) if session else 0,
            "played_deals": session.played_deals if session else 0,
            "balances": list(session.balances) if session else [0, 0, 0, 0],
            "session_over": self.over,
            "version": self.version,
            "daily": self.state["daily"]["day"] if self.state.get("daily") else None,
        }

    def lobby_entry(self) -> JSON | None:
        """The room's lobby line, or None when it does not belong in the lobby."""
        if not self.state["listed"] or self.over:
            return None
        return {
            "room_id": self.room_id,
            "name": self.state["name"],
            "ruleset": self.state["ruleset"],
            "status": self.status,
            "humans": sum(1 for seat in SEATS if self.seats[seat]["kind"] == "human"),
            "free_seats": len(self.free_seats()),
            "spectators": 0,  # live counts are added by the server that holds the room
            "session": dict(self.state["session_length"]),
            "created_at": self.state["created_at"],
        }

    def free_seats(self) -> list[int]:
        """Seats a human may join: empty ones; after the start, any seat no human holds."""
        if self.state.get("daily"):  # a daily game's bots are part of the challenge (server/challenge.py)
            return [0] if self.seats[0]["kind"] != "human" else []
        if self.started:
            return [seat for seat in SEATS if self.seats[seat]["kind"] != "human"]
        return [seat for seat in SEATS if self.seats[seat]["kind"] == "empty"]

    # ---------------------------------------------------------------- changing the room

    async def change(
        self, change: Callable[[], tuple[JSON, list[JSON], list[JSON]]]
    ) -> JSON:
        """Run `change` under the room lock, store the result, then push to everyone.

        `change` validates first (raising `ProtocolError` before touching anything), then mutates
        `self.state`/`self.session` and returns (answer, public events, log entries). If the store
        refuses the write (another process wrote first), the room is reloaded and `conflict` raised.
        """
        with self.manager.bots.human_request():
            async with self.lock:
                return await self._change_locked(change)

    async def _change_locked(self, change: Callable[[], tuple[JSON, list[JSON], list[JSON]]]) -> JSON:
        if self.stale:
            try:
                await self.reload()
            except Exception:
                log.exception("room %s: reload failed", self.room_id)
                raise ProtocolError("store_unavailable", "the store does not answer; nothing was applied: "
                                    "retry") from None
        answer, events, entries = change()
        await self.persist(entries)
        for hook in self.manager.change_hooks:  # e.g. the daily leaderboard; before anyone hears of it
            await hook(self)
        self.broadcast(events)
        self.kick()
        return answer

    async def persist(self, entries: list[JSON]) -> None:
        """Write the state with a compare-and-set on the version."""
        lobby = self.lobby_entry()
        try:
            store = self.manager.store
            self.version = await store.save(self.room_id, self.state, self.version, entries, lobby)
        except VersionConflictError as conflict:
            await self.reload()
            raise ProtocolError("conflict", f"the room changed under this request ({conflict}); nothing was "
                                "applied: retry") from None
        except Exception as failure:
            # The change is not stored, so it did not happen: the live copy goes back to the stored
            # state now, or (store unreachable) before the next change.
            log.exception("room %s: store write failed", self.room_id)
            self.stale = True
            with contextlib.suppress(Exception):
                await self.reload()
            message = f"the room could not be saved ({type(failure).__name__}); nothing was applied: retry"
            raise ProtocolError("store_unavailable", message) from None
        if lobby != self.last_lobby_entry:
            self.last_lobby_entry = lobby
            self.manager.lobby_changed()

    async def reload(self) -> None:
        """Replace the live state with the stored one."""
        stored = await self.manager.store.load(self.room_id)
        if stored is None:
            return
        log_entries = await self.manager.store.read_log(self.room_id)
        self.state, self.version = stored.state, stored.version
        self.session = session_from_log(log_entries) if stored.state["session"] is not None else None
        self.stale = False

    def broadcast(self, events: list[JSON]) -> None:
        """Push the events (if any) and then a fresh `state` to every connection in the room."""
        info = self.room_info()
        deal_number = current_deal_index(self.session) if self.session else 0
        events_message = (
            {"type": "events", "room_id": self.room_id, "deal_number": deal_number, "events": events}
            if events else None
        )
        views: dict[int | None, JSON] = {}
        for peer in list(self.peers):
            self.send(peer, events_message, info, views)

    def send(
        self, peer: Peer, events_message: JSON | None, info: JSON | None = None,
        views: dict[int | None, JSON] | None = None,
    ) -> None:
        """Push events (optional) and the state to one connection, through the filter."""
        seat = self.seat_of(peer.participant)
        host = self.is_host(peer.participant)
        if events_message is not None and peer.wants_events:
            filtered = filter_for_recipient(self, seat, host, events_message)
            if filtered is not None:
                peer.push(filtered)
        state = filter_for_recipient(self, seat, host, {"type": "state", "room": info or self.room_info()},
                                     views)
        if state is not None:
            peer.push(state)

    # ---------------------------------------------------------------- connections

    def attach(self, peer: Peer) -> list[JSON]:
        """A connection enters the room (no store write: presence is not stored). Returns events."""
        events: list[JSON] = []
        self.peers.add(peer)
        peer.room = self
        seat = self.seat_of(peer.participant)
        if seat is not None:
            was_bot = self.started and self.bot_playing(seat)
            self.disconnected_since.pop(seat, None)
            if was_bot:
                log.info("player returned", extra={"fields": {"room": self.room_id, "seat": seat}})
                events.append({"type": "player_returned", "seat": seat})
        return events

    def detach(self, peer: Peer) -> None:
        """A connection leaves or drops; its seat (if any) starts the grace period."""
        self.peers.discard(peer)
        if peer.room is self:
            peer.room = None
        seat = self.seat_of(peer.participant)
        if seat is not None and not self.connected(seat):
            self.disconnected_since[seat] = time.monotonic()
            self.arm_grace_timer(seat)
        self.broadcast([])
        self.kick()
        self.manager.forget_if_idle(self)

    def arm_grace_timer(self, seat: int) -> None:
        """When the grace period ends, let the bot take the seat over (if the player is still away)."""
        loop = asyncio.get_running_loop()
        delay = float(self.state["grace_seconds"]) + 0.01

        def expire() -> None:
            human = self.seats[seat]["kind"] == "human"
            if human and self.started and not self.over and self.bot_playing(seat):
                log.info("bot took over", extra={"fields": {"room": self.room_id, "seat": seat}})
                self.broadcast([{"type": "bot_took_over", "seat": seat}])
                self.kick()

        self.timers = [timer for timer in self.timers if timer.when() > loop.time()]
        self.timers.append(loop.call_later(delay, expire))

    # ---------------------------------------------------------------- bots

    def kick(self) -> None:
        """Make sure the bot loop runs if a bot may have something to do."""
        if (self.bot_task is None or self.bot_task.done()) and self._bot_work() is not None:
            self.bot_task = asyncio.get_running_loop().create_task(self._bot_loop())

    def _bot_work(self) -> int | None:
        """The seat a bot should act for now, or -1 to deal the next deal, or None."""
        session = self.session
        if session is None or self.over:
            return None
        deal = session.deal
        if deal.finished:
            return -1 if self._everyone_ready() else None
        for seat in sorted(deal.to_act()):
            if self.bot_playing(seat):
                return seat
        return None

    def _everyone_ready(self) -> bool:
        humans = [seat for seat in SEATS if self.seats[seat]["kind"] == "human"]
        ready = set(self.state.get("ready", []))
        connected = [seat for seat in humans if self.connected(seat)]
        if not humans:
            # Bot-only tables play on by themselves only when the session has an end.
            length = self.state["session_length"]
            return length.get("deals") is not None or length.get("target") is not None
        return bool(connected) and all(seat in ready for seat in connected)

    async def _bot_loop(self) -> None:
        try:
            while True:
                async with self.lock:
                    work = self._bot_work()
                if work is None:
                    return
                delay = self.manager.bot_delay
                if delay > 0:
                    await asyncio.sleep(delay)
                else:
                    await asyncio.sleep(0)  # let the other rooms and connections run
                # Only a few bot steps run at once, whatever the number of tables, and none starts
                # while a human's request is being served: the others wait outside the event loop's
                # ready queue, so a human's request is never queued behind hundreds of bot moves
                # (see `BotScheduler` and docs/benchmarks.md).
                async with self.manager.bots.bot_move():
                    await self._bot_step(work)
        except ProtocolError as problem:
            # A write the store refused (or lost to a conflict) changed nothing: try again shortly,
            # or the table would wait for a bot that never moves.
            log.warning("room %s: bot move not stored, retrying: %s", self.room_id, problem.message)
            asyncio.get_running_loop().call_later(BOT_RETRY_SECONDS, self.kick)
        except Exception:
            log.exception("room %s: bot loop failed", self.room_id)

    async def _bot_step(self, work: int) -> None:
        """One bot move (or dealing the next deal), re-checked under the lock."""
        if work == -1:
            async with self.lock:
                if self._bot_work() == -1:
                    await self._change_locked(self._next_deal_change)
            return
        async with self.lock:
            if self._bot_work() != work:
                return
            decision = self._bot_decision(work)
            version = self.version
        if decision.kind != "random":
            # A searching bot thinks for up to its budget: off the event loop, so that the other
            # tables and connections are served meanwhile.
            action = await asyncio.to_thread(decision.decide)
        else:
            action = decision.decide()
        async with self.lock:
            if self.version != version or self._bot_work() != work:
                return  # the table moved on (the player came back, a conflict reloaded it)
            await self._change_locked(functools.partial(self._act_change, work, action))

    def _bot_decision(self, seat: int) -> BotDecision:
        """What a bot needs to decide for `seat`: exactly the seat's view, and a deterministic seed."""
        assert self.session is not None
        deal = self.session.deal
        kind = self.seats[seat].get("bot") or self.state["bot"]
        # Derived from the deal seed, never the seed itself: with it a bot could rebuild every hand.
        point = f"bot:{seat}:{len(deal.log)}".encode()
        seed = hmac.new(str(deal.seed).encode(), point, hashlib.sha256).hexdigest()
        return BotDecision(kind, self.manager.bot(kind), deal.view(seat), seed)

    # ---------------------------------------------------------------- the changes (validate, then mutate)

    def _act_change(self, seat: int, action: str) -> tuple[JSON, list[JSON], list[JSON]]:
        """The one path every action takes, human or bot."""
        session = self._playing_session()
        deal = session.deal
        if deal.finished:
            raise ProtocolError("illegal_action", "the deal is over: send 'ready' for the next deal")
        acting = deal.to_act()
        if seat not in acting:
            names = " or ".join(f"seat {s}" for s in sorted(acting))
            raise ProtocolError("not_your_turn", f"not your turn: {names} to act")
        deal_number = session.deal_number
        try:
            events = session.apply(seat, action)
        except MalformedAction as problem:
            raise ProtocolError("malformed_action", problem.reason) from None
        except IllegalAction as problem:
            raise ProtocolError("illegal_action", problem.reason) from None
        except RulesError as problem:
            raise ProtocolError("illegal_action", problem.reason) from None
        canonical = deal.log[-1][1]
        entries: list[JSON] = [{"t": "act", "deal": deal_number, "seat": seat, "action": canonical}]
        if deal.finished:
            self.state["ready"] = []
            result = deal.result()
            log.info("deal finished", extra={"fields": {
                "room": self.room_id, "deal": deal_number, "status": result["status"],
                "contract": result["contract"], "points": result["points"], "session_over": session.over}})
            if session.over:
                entries.append({"t": "session_over", "balances": list(session.balances)})
        return {"action": canonical, "seat": seat}, events, entries

    def _playing_session(self) -> Session:
        if self.session is None:
            raise ProtocolError("not_started", "the game has not started yet (the host sends 'start')")
        if self.over:
            raise ProtocolError("session_over", "the session is over")
        return self.session

    def _next_deal_change(self) -> tuple[JSON, list[JSON], list[JSON]]:
        session = self._playing_session()
        if not session.deal.finished:
            raise ProtocolError("deal_in_progress", "the deal is still being played")
        deal = session.next_deal()
        self.state["ready"] = []
        number = session.deal_number
        return (
            {"deal_number": number},
            [{"type": "deal_started", "deal_number": number, "dealer": deal.dealer}],
            [{"t": "next_deal", "deal": number}],
        )


# ------------------------------------------------------------------------------------------- the manager


class RoomManager:
    """All rooms this process serves, the store, the bots and the lobby subscribers."""

    def __init__(self, store: Store, bot_delay: float = 0.6) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.rooms: dict[str, Room] = {}
        self.lobby_peers: set[Peer] = set()
        self._loading: dict[str, asyncio.Future[Room | None]] = {}
        self._bots: dict[str, Bot] = {}
        self._lobby_task: asyncio.Task[None] | None = None
        self.bots = BotScheduler()
        # Run after each stored change of a room, under its lock (server/challenge.py adds one).
        self.change_hooks: list[Callable[[Room], Awaitable[None]]] = []

    def bot(self, kind: str) -> Bot:
        """One bot object per kind (bots are stateless between decisions)."""
        if kind not in self._bots:
            self._bots[kind] = get_bot(kind)
        return self._bots[kind]

    async def load_all(self) -> None:
        """Load every unfinished started room so its bots play on after a restart."""
        for room_id in await self.store.room_ids():
            room = await self.get(room_id)
            if room is not None:
                if room.started and not room.over:
                    room.kick()
                else:
                    self.forget_if_idle(room)

    async def close(self) -> None:
        """Stop bot loops and timers."""
        for room in list(self.rooms.values()):
            for timer in room.timers:
                timer.cancel()
            if room.bot_task is not None:
                room.bot_task.cancel()
        tasks = [room.bot_task for room in self.rooms.values() if room.bot_task is not None]
        if self._lobby_task is not None:
            self._lobby_task.cancel()
            tasks.append(self._lobby_task)
        await asyncio.gather(*tasks, return_exceptions=True)

    async def get(self, room_id: str) -> Room | None:
        """The live room, loading it from the store if this process does not hold it yet."""
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        pending = self._loading.get(room_id)
        if pending is not None:
            return await pending
        future: asyncio.Future[Room | None] = asyncio.get_running_loop().create_future()
        self._loading[room_id] = future
        try:
            stored = await self.store.load(room_id)
            room = None
            if stored is not None:
                started = stored.state["session"] is not None
                session = session_from_log(await self.store.read_log(room_id)) if started else None
                room = Room(self, stored.state, stored.version, session)
            if room is not None:
                self.rooms[room_id] = room
                room.last_lobby_entry = room.lobby_entry()
                for seat in room.disconnected_since:
                    room.arm_grace_timer(seat)
                room.kick()
            future.set_result(room)
            return room
        except BaseException as problem:
            future.set_exception(problem)
            future.exception()  # retrieved here: concurrent callers, if any, get it too
            raise
        finally:
            del self._loading[room_id]

    async def require(self, room_id: str) -> Room:
        """The room, or `no_such_room`."""
        room = await self.get(room_id)
        if room is None:
            raise ProtocolError("no_such_room", f"no room with id {room_id!r}")
        return room

    def forget_if_idle(self, room: Room) -> None:
        """Drop a finished room nobody watches from memory (the store keeps it)."""
        if not room.peers and room.over and (room.bot_task is None or room.bot_task.done()):
            self.rooms.pop(room.room_id, None)

    # ---------------------------------------------------------------- lobby

    async def lobby(self) -> list[JSON]:
        """The lobby: listed, unfinished rooms, with live spectator counts for rooms held here."""
        entries = await self.store.lobby()
        rooms = []
        for room_id, entry in entries.items():
            live = self.rooms.get(room_id)
            if live is not None:
                current = live.lobby_entry()
                if current is None:
                    continue
                entry = {**current, "spectators": live.spectators()}
            rooms.append(entry)
        rooms.sort(key=lambda entry: entry["created_at"])
        return rooms

    def lobby_changed(self) -> None:
        """Push the lobby to subscribers (coalesced: one push per burst of changes)."""
        if not self.lobby_peers or (self._lobby_task is not None and not self._lobby_task.done()):
            return
        self._lobby_task = asyncio.get_running_loop().create_task(self._push_lobby())

    async def _push_lobby(self) -> None:
        await asyncio.sleep(0.05)
        rooms = await self.lobby()
        for peer in list(self.lobby_peers):
            peer.push({"type": "lobby", "rooms": rooms})

    # ---------------------------------------------------------------- requests

    async def create_room(self, peer: Peer, request: CreateRoom) -> JSON:
        """`create_room`: validate the options, store the room, seat the creator if asked."""
        if request.ruleset not in ruleset_names():
            raise ProtocolError("unknown_ruleset", f"unknown ruleset {request.ruleset!r}; known: "
                                f"{', '.join(ruleset_names())}")
        try:
            house_rules = get_ruleset(request.ruleset).resolve_house_rules(request.house_rules)
        except RulesError as problem:
            raise ProtocolError("bad_house_rules", problem.reason) from None
        bot = request.bot or default_bot()
        self._check_bot(bot)
        token = secrets.token_urlsafe(32)
        participant = hash_token(token)
        room_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        seats: list[JSON] = [{"kind": "empty", "name": None, "participant": None, "bot": None} for _ in SEATS]
        seat: int | None = None
        if request.seat is not None:
            seat = 0 if request.seat == "any" else int(request.seat)
            seats[seat] = {"kind": "human", "name": peer.name, "participant": participant, "bot": None}
        state: JSON = {
            "room_id": room_id,
            "name": request.name or f"{peer.name}'s table",
            "ruleset": request.ruleset,
            "house_rules": house_rules,
            "listed": request.listed,
            "bot": bot,
            "session_length": {"deals": request.session.deals, "target": request.session.target},
            "grace_seconds": request.grace_seconds,
            "created_at": time.time(),
            "host": participant,
            "seats": seats,
            "ready": [],
            "ended": False,
            "session": None,
        }
        room = Room(self, state, 0)
        room.disconnected_since.clear()
        log.info("room created", extra={"fields": {"room": room_id, "ruleset": request.ruleset,
                                                   "listed": request.listed, "bot": bot}})
        async with room.lock:
            await room.persist([{"t": "created", "room": {k: v for k, v in state.items() if k != "session"}}])
            self.rooms[room_id] = room
        await self.enter(peer, room, participant, token)
        return {"room_id": room_id, "token": token, "seat": seat, "host": True}

    def _check_bot(self, bot: str) -> None:
        if bot not in bot_names():
            raise ProtocolError("unknown_bot", f"unknown bot {bot!r}; known: {', '.join(bot_names())}")

    async def enter(self, peer: Peer, room: Room, participant: str | None, token: str | None) -> None:
        """Move a connection into a room (out of its previous one) and push it the state."""
        if peer.room is not None:
            peer.room.detach(peer)  # also when re-entering the same room under another identity
        self.rooms.setdefault(room.room_id, room)
        self.lobby_peers.discard(peer)
        peer.participant = participant
        peer.token = token
        async with room.lock:
            events = room.attach(peer)
            room.broadcast(events)
            room.kick()

    async def join(self, peer: Peer, room_id: str, wanted: int | None) -> JSON:
        """`join`: take a seat; the loser of a race for the last seat gets `seat_taken`/`room_full`."""
        room = await self.require(room_id)
        participant = peer.participant if peer.room is room else None
        token = peer.token if participant is not None else None

        def change() -> tuple[JSON, list[JSON], list[JSON]]:
            nonlocal token, participant
            if room.over:
                raise ProtocolError("session_over", "the session is over")
            if participant is not None and room.seat_of(participant) is not None:
                raise ProtocolError("already_seated", f"you already hold seat {room.seat_of(participant)}")
            free = room.free_seats()
            if wanted is None:
                if not free:
                    raise ProtocolError("room_full", "every seat is taken")
                seat = free[0]
            else:
                seat = wanted
                if seat not in free:
                    holder = room.seats[seat]
                    raise ProtocolError("seat_taken", f"seat {seat} is taken (by {holder['kind']} "
                                        f"{holder['name'] or ''})".replace(" )", ")"))
            if participant is None:
                token = secrets.token_urlsafe(32)
                participant = hash_token(token)
            room.seats[seat] = {"kind": "human", "name": peer.name, "participant": participant, "bot": None}
            room.disconnected_since.pop(seat, None)
            host = room.is_host(participant)
            answer = {"room_id": room.room_id, "seat": seat, "token": token, "host": host}
            events = [{"type": "seat_changed", "seat": seat, "kind": "human", "name": peer.name}]
            return answer, events, [{"t": "seat", "seat": seat, "kind": "human", "name": peer.name}]

        # The connection leaves its previous room only once the seat is won (`enter`): a refused join
        # changes nothing.
        answer = await room.change(change)
        await self.enter(peer, room, participant, token)
        return answer

    async def resume(self, peer: Peer, room_id: str, token: str) -> JSON:
        """`resume`: the token gives back the seat (and host rights) after a drop or a restart."""
        room = await self.require(room_id)
        participant = hash_token(token)
        seat = room.seat_of(participant)
        if seat is None and not room.is_host(participant):
            raise ProtocolError("bad_token", "this room knows no such token (it may have been given up by "
                                "'leave')")
        for other in list(room.peers):
            if other is not peer and other.participant == participant:
                other.participant = None  # the newest connection holds the seat
                other.token = None
        await self.enter(peer, room, participant, token)
        return {"room_id": room.room_id, "seat": seat, "host": room.is_host(participant)}

    async def watch(self, peer: Peer, room_id: str) -> JSON:
        """`watch`: enter as a spectator."""
        room = await self.require(room_id)
        await self.enter(peer, room, None, None)
        return {"room_id": room.room_id, "seat": None}

    async def leave(self, peer: Peer) -> JSON:
        """`leave`: give up the seat (a bot plays it after the start) and leave the room."""
        room = self.current(peer)
        participant = peer.participant

        def change() -> tuple[JSON, list[JSON], list[JSON]]:
            seat = room.seat_of(participant)
            events: list[JSON] = []
            entries: list[JSON] = []
            if seat is not None:
                if room.started:
                    name = f"{room.state['bot']} bot"
                    room.seats[seat] = {"kind": "bot", "name": name, "participant": None, "bot": None}
                else:
                    room.seats[seat] = {"kind": "empty", "name": None, "participant": None, "bot": None}
                room.disconnected_since.pop(seat, None)
                ready = set(room.state.get("ready", []))
                ready.discard(seat)
                room.state["ready"] = sorted(ready)
                events.append({"type": "seat_changed", "seat": seat, "kind": room.seats[seat]["kind"],
                               "name": room.seats[seat]["name"]})
                entries.append({"t": "seat", "seat": seat, "kind": room.seats[seat]["kind"], "name": None})
            if room.is_host(participant):
                humans = [s for s in SEATS if room.seats[s]["kind"] == "human"]
                room.state["host"] = room.seats[humans[0]]["participant"] if humans else None
                entries.append({"t": "host", "seat": humans[0] if humans else None})
            return {"room_id": room.room_id}, events, entries

        if participant is not None and (room.seat_of(participant) is not None or room.is_host(participant)):
            await room.change(change)
        peer.participant = None
        peer.token = None
        room.detach(peer)
        return {"room_id": room.room_id}

    def current(self, peer: Peer) -> Room:
        """The room the connection is in, or `not_in_room`."""
        if peer.room is None:
            raise ProtocolError("not_in_room", "you are in no room: send create_room, join, resume or watch "
                                "first")
        return peer.room

    def _host_room(self, peer: Peer) -> Room:
        room = self.current(peer)
        if not room.is_host(peer.participant):
            raise ProtocolError("not_host", "only the host may do this")
        return room

    async def add_bot(self, peer: Peer, wanted: int | None, kind: str | None) -> JSON:
        """`add_bot` (host): a bot on an empty seat."""
        room = self._host_room(peer)
        if kind is not None:
            self._check_bot(kind)

        def change() -> tuple[JSON, list[JSON], list[JSON]]:
            if room.over:
                raise ProtocolError("session_over", "the session is over")
            empty = [seat for seat in SEATS if room.seats[seat]["kind"] == "empty"]
            if wanted is None:
                if not empty:
                    raise ProtocolError("room_full", "no empty seat for a bot")
                seat = empty[0]
            elif wanted not in empty:
                raise ProtocolError("seat_taken", f"seat {wanted} is not empty")
            else:
                seat = wanted
            name = f"{kind or room.state['bot']} bot"
            room.seats[seat] = {"kind": "bot", "name": name, "participant": None, "bot": kind}
            return ({"seat": seat}, [{"type": "seat_changed", "seat": seat, "kind": "bot", "name": name}],
                    [{"t": "seat", "seat": seat, "kind": "bot", "name": name}])

        return await room.change(change)

    async def remove_bot(self, peer: Peer, seat: int) -> JSON:
        """`remove_bot` (host): the seat becomes empty (a bot still plays it after the start)."""
        room = self._host_room(peer)

        def change() -> tuple[JSON, list[JSON], list[JSON]]:
            if room.state.get("daily"):  # the same bots for every player of the day (server/challenge.py)
                raise ProtocolError("daily_room", "a daily challenge plays against its three bots: they stay")
            if room.seats[seat]["kind"] != "bot":
                raise ProtocolError("not_a_bot", f"seat {seat} holds no bot ({room.seats[seat]['kind']})")
            room.seats[seat] = {"kind": "empty", "name": None, "participant": None, "bot": None}
            return ({"seat": seat}, [{"type": "seat_changed", "seat": seat, "kind": "empty", "name": None}],
                    [{"t": "seat", "seat": seat, "kind": "empty", "name": None}])

        return await room.change(change)

    async def start_game(self, peer: Peer) -> JSON:
        """`start` (host): bots fill the empty seats and the first deal is dealt."""
        room = self._host_room(peer)

        def change() -> tuple[JSON, list[JSON], list[JSON]]:
            if room.started:
                raise ProtocolError("already_started", "the game has already started")
            # A daily game brings the day's secret (server/challenge.py); the session keeps it.
            secret = room.state.pop("session_secret", None) or secrets.token_hex(16)
            length = room.state["session_length"]
            session = Session(room.state["ruleset"], secret, room.state["house_rules"],
                              deals=length.get("deals"), target=length.get("target"))
            events: list[JSON] = []
            for seat in SEATS:
                if room.seats[seat]["kind"] == "empty":
                    name = f"{room.state['bot']} bot"
                    room.seats[seat] = {"kind": "bot", "name": name, "participant": None, "bot": None}
                    events.append({"type": "seat_changed", "seat": seat, "kind": "bot", "name": name})
            room.session = session
            # The state keeps the session's settings only (they never change once started); its
            # actions live in the event log, so a write costs the same on the first deal and the last.
            room.state["session"] = session.config()
            room.state["ready"] = []
            log.info("game started", extra={"fields": {"room": room.room_id, "seats": [
                entry["kind"] for entry in room.seats]}})
            events.append({"type": "deal_started", "deal_number": 0, "dealer": session.deal.dealer})
            seats = [dict(seat_entry, participant=None) for seat_entry in room.seats]
            entry = {"t": "started", "config": session.config(), "seats": seats}
            return {"deal_number": 0}, events, [entry]

        return await room.change(change)

    async def act(self, peer: Peer, action: str, claimed_seat: int | None) -> JSON:
        """`act`: an action for the connection's own seat, through the same path as the bots."""
        room = self.current(peer)
        seat = room.seat_of(peer.participant)
        if seat is None:
            raise ProtocolError("spectator_cannot_act", "spectators may not act: join a seat to play")
        if claimed_seat is not None and claimed_seat != seat:
            raise ProtocolError("not_your_seat", f"you hold seat {seat}, not seat {claimed_seat}: a player "
                                "acts only for their own seat")
        try:
            return await room.change(lambda: room._act_change(seat, action))
        except ProtocolError as problem:
            if problem.code in STALE_CODES:
                # The client probably acted on an old view: send it the current one with the refusal.
                room.send(peer, None)
            raise

    async def ready(self, peer: Peer) -> JSON:
        """`ready`: the next deal starts when every connected human is ready."""
        room = self.current(peer)
        seat = room.seat_of(peer.participant)
        if seat is None:
            raise ProtocolError("not_seated", "only a seated player can be ready")

        def change() -> tuple[JSON, list[JSON], list[JSON]]:
            session = room._playing_session()
            if not session.deal.finished:
                raise ProtocolError("deal_in_progress", "the deal is still being played")
            ready = set(room.state.get("ready", []))
            ready.add(seat)
            room.state["ready"] = sorted(ready)
            waiting = [s for s in SEATS if room.seats[s]["kind"] == "human" and room.connected(s)
                       and s not in ready]
            return ({"ready": sorted(ready), "waiting_for": waiting}, [],
                    [{"t": "ready", "deal": current_deal_index(session), "seat": seat}])

        return await room.change(change)

    async def end_game(self, peer: Peer) -> JSON:
        """`end_game` (host): the session ends now."""
        room = self._host_room(peer)

        def change() -> tuple[JSON, list[JSON], list[JSON]]:
            session = room._playing_session()
            room.state["ended"] = True
            balances = list(session.balances)
            return ({"balances": balances}, [{"type": "game_ended", "balances": balances}],
                    [{"t": "ended", "balances": balances}])

        return await room.change(change)

    async def records(self, peer: Peer) -> JSON:
        """`get_records`: the finished deals, from the live session (the event log replayed, when the
        room's live copy may be behind the store)."""
        room = self.current(peer)
        if room.session is not None and not room.stale:
            # The live session is the stored log replayed: replaying it again on every request let one
            # connection asking over and over stall the event loop for everyone.
            history = room.session.history
            return {"room_id": room.room_id, "records": [dict(item["record"]) for item in history]}
        entries = await self.store.read_log(room.room_id)
        return {"room_id": room.room_id, "records": records_from_log(entries)}


def records_from_log(entries: Iterable[JSON]) -> list[JSON]:
    """Every finished deal of a room's event log, as deal records (replaying the logged actions)."""
    session = session_from_log(entries)
    return [dict(item["record"]) for item in session.history] if session is not None else []


def session_from_log(entries: Iterable[JSON]) -> Session | None:
    """The session as the room's event log leaves it: its settings, then every logged action replayed."""
    session: Session | None = None
    for entry in entries:
        kind = entry.get("t")
        if kind == "started":
            session = Session.from_config(entry["config"])
        elif session is None:
            continue
        elif kind == "act":
            session.apply(int(entry["seat"]), str(entry["action"]))
        elif kind == "next_deal":
            session.next_deal()
    return session

