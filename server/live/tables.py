"""The requests of a connection about tables: which room it is in, under which identity, and the
command each request applies to that room. The one place that ties connections to rooms (nothing is
written onto the connection objects)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from dataclasses import dataclass, replace

from ..archive import ArchiveWriter
from ..coord import Coordination, memory_coordination, new_process_id
from ..store import Store
from ..table import (
    Daily,
    Outcome,
    Table,
    TableError,
    chat,
    errors,
    facts,
    hash_token,
    play,
    seating,
    to_stored,
)
from .archiving import ArchivePolicy, Archiving
from .bots import BotDriver, BotObserver, BotScheduler
from .change import JSON
from .chat import RoomChat
from .lobby import Lobby
from .new_room import NewRoom
from .outbox import Outbox
from .records import ArchivedRecords, RoomRecords
from .registry import RoomRegistry
from .room import Command, LiveRoom, Member, RoomListener
from .seat_claims import SeatClaims
from .shared import SharedRooms
from .timers import GraceTimers
from .turn_clock import TurnClocks

log = logging.getLogger("whist.rooms")

ALONE_LEASE_SECONDS = 24 * 3600.0
# How many times a player's request is judged again after the room turned out to be behind the store
# (another process changed it): a stale copy must never refuse a legal move.
ATTEMPTS = 4


@dataclass(slots=True)
class Membership:
    """Where a connection is: its room, the participant (token hash) it acts as, and that token
    (kept in memory only, to answer a later `join`)."""

    room: LiveRoom
    participant: str | None
    token: str | None
    claim: int = 0  # the seat's `claims` count when this connection took or resumed it


def new_room_id() -> str:
    """A short random room id (letters, digits)."""
    return secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")


class Tables:
    """Every table of this process and its connections: the room registry with its listeners (the
    outbox, the bot driver, the grace timers, the lobby, the wiring to other processes on the store,
    and any added with `listen`).

    `coordination`: the primitives shared with the other processes on the same store (Redis); by
    default the in-memory twins of a process alone on its store (it owns every room). `archive`: where
    finished sessions go for good (None: nowhere, they stay in the store), with `policy`'s retention
    and abandonment periods."""

    def __init__(self, store: Store, bot_delay: float, scheduler: BotScheduler | None = None,
                 coordination: Coordination | None = None, metrics: BotObserver | None = None,
                 bot_workers: int = 1, archive: ArchiveWriter | None = None,
                 policy: ArchivePolicy | None = None) -> None:
        self.store = store
        self.scheduler = scheduler or BotScheduler()
        # The one place the live layer is wired: each collaborator is passed to its constructor.
        self.registry = RoomRegistry(store, self.scheduler.human_request)
        self.outbox = Outbox()
        self.lobby = Lobby(store, self._current_room)
        # Alone on its store, a process owns every room it holds for good: its leases do not expire in
        # practice (a long stall of the event loop must not hand its rooms to nobody for a moment).
        if coordination is None:
            coordination = memory_coordination(new_process_id(), lease_ttl=ALONE_LEASE_SECONDS)
        self.shared = SharedRooms(coordination, self.registry, self.lobby.changed, self._heard_chat,
                                  store.repair_index)
        self.chat = RoomChat(store, self.shared.publish_chat)
        owner = self.shared.ownership  # the bots and timers run where the room is owned
        self.bots = BotDriver(self.scheduler, bot_delay, metrics, bot_workers, owner)
        self.timers = GraceTimers(owner)
        self.claims = SeatClaims(self)
        self.clocks = TurnClocks(owner)
        # Finished sessions to the archive, by the room's owner; the archive answers for rooms gone.
        self.archiving = None if archive is None else Archiving(
            archive, store, owner, self.shared.ownership.acquire, self.shared.ownership.release,
            self.registry.held, self.registry.forget_if_idle, policy or ArchivePolicy())
        self.room_reader = RoomRecords(store, self.registry,
                                       None if archive is None else ArchivedRecords(archive.archive))
        archiving = () if self.archiving is None else (self.archiving,)
        for listener in (*self.shared.first_listeners, self.outbox, self.timers, self.clocks, self.lobby,
                         self.bots, self.claims, *archiving, *self.shared.listeners):
            self.registry.listen(listener)
        self.members: dict[Member, Membership] = {}
        # The hashed player key each connection gave (`hello`): every seat it takes is credited to it in
        # the store, where whichever process archives the room finds it. The raw key is never kept.
        self.players: dict[Member, str] = {}
        self._resuming: set[Member] = set()  # connections whose `resume` is under way
        # One move of a connection at a time between its `resume` and a move to the rail (`to_spectator`,
        # a task): a move judged before the resume must not finish after it and undo it.
        self._moving: dict[Member, asyncio.Lock] = {}

    def listen(self, listener: RoomListener) -> None:
        """Add a listener of every room's committed changes (e.g. the daily leaderboard)."""
        self.registry.listen(listener)

    @property
    def rooms(self) -> dict[str, LiveRoom]:
        """The rooms held by this process."""
        return self.registry.rooms

    async def join_cluster(self) -> None:
        """Join the other processes on the store (also done on first use)."""
        await self.shared.start()

    async def close(self) -> None:
        """Stop bot loops, timers and the lobby push; release this process's leases and presence."""
        self.registry.close()
        if self.archiving is not None:
            await self.archiving.stop()
        await self.bots.stop()
        await self.lobby.stop()
        await self.shared.close()

    def _current_room(self, room_id: str) -> LiveRoom | None:
        """A room held here whose copy is current (the lobby's live facts)."""
        room = self.registry.held(room_id)
        return room if room is not None and not room.stale else None

    async def _room(self, room_id: str) -> LiveRoom:
        """The room, followed by this process and current (a connection is about to use it)."""
        room = await self.registry.require(room_id)
        await self.shared.attach(room)
        if room.stale or room.over:  # a finished room may have left the store since (its retention ran out)
            await room.catch_up()
        if room.gone:
            self.registry.drop(room)
            raise errors.NoSuchRoom(f"no room with id {room_id!r}")
        return room

    # ---------------------------------------------------------------- membership

    def current(self, member: Member) -> Membership:
        """Where the connection is, or `NotInRoom`."""
        found = self.members.get(member)
        if found is None:
            raise errors.NotInRoom("you are in no room: send create_room, join, resume or watch first")
        return found

    def room_of(self, member: Member) -> LiveRoom | None:
        """The connection's room, if any."""
        found = self.members.get(member)
        return found.room if found is not None else None

    async def enter(self, member: Member, room: LiveRoom, participant: str | None, token: str | None,
                    claim: int | None = None) -> None:
        """Move a connection into a room (out of its previous one) and push it the state. `claim`: the
        seat's claim it holds (by default the room's current one)."""
        await self.depart(member)
        self.lobby.subscribers.discard(member)
        await self.shared.attach(room)
        if claim is None:
            seat = facts.seat_of(room.table, participant)
            claim = room.table.claims[seat] if seat is not None else 0
        self.members[member] = Membership(room, participant, token, claim)

        outcome = await room.admit(member, participant)
        if member.closing:
            # It closed while this move waited, and its `disconnect` may have found it in no room yet:
            # kept, a dead connection would stay in the room for good (followed here for nobody).
            self.members.pop(member, None)
            await self._leave(member, room)
            return
        if outcome is not None and outcome.events:
            log.info("player returned", extra={"fields": {"room": room.room_id, "events": outcome.events}})
        await self.chat.replay(room, member, participant)

    async def depart(self, member: Member) -> None:
        """The connection leaves its room (or drops); its seat, if any, starts the grace period."""
        found = self.members.pop(member, None)
        if found is None:
            return
        await self._leave(member, found.room)

    async def _leave(self, member: Member, room: LiveRoom) -> None:
        await room.release(member)
        await self.shared.detach(room)
        self.registry.forget_if_idle(room)

    async def disconnect(self, member: Member) -> None:
        """The connection closed."""
        self.players.pop(member, None)
        self.lobby.subscribers.discard(member)
        self.chat.forget(member)
        self._moving.pop(member, None)
        await self.depart(member)  # a move under way finds `closing` set (see `enter`)

    def identify(self, member: Member, player: str | None) -> None:
        """The hashed player key a connection gave (`hello`; None: none): the seats it takes from now on
        are credited to it."""
        if player is None:
            self.players.pop(member, None)
        else:
            self.players[member] = player

    async def _credit(self, room: LiveRoom, member: Member, seat: object, *, anonymous_clears: bool) -> None:
        """Credit the seat the connection just took to its player key. A connection without one clears
        the seat's credit when it is a new holder (`anonymous_clears`: join, create), not when it comes
        back to its own seat (resume, play again). A store failure only loses the credit (logged)."""
        if not isinstance(seat, int):
            return
        player = self.players.get(member)
        if player is None and not anonymous_clears:
            return
        try:
            await self.store.credit_seat(room.room_id, seat, player)
        except Exception as failure:
            log.warning("seat not credited", extra={"fields": {"room": room.room_id, "seat": seat,
                                                                "error": type(failure).__name__}})

    # ---------------------------------------------------------------- requests

    async def create_room(self, member: Member, request: NewRoom, daily: Daily | None = None,
                          secret: str | None = None) -> JSON:
        """`create_room`: validate the options, store the room, seat the creator if asked."""
        seat = None if request.seat is None else 0 if request.seat == "any" else int(request.seat)
        outcome = seating.create(
            new_room_id(), token=secrets.token_urlsafe(32), player=member.name, ruleset=request.ruleset,
            house_rules=request.house_rules, bot=request.bot, name=request.name, seat=seat,
            deals=request.session.deals, target=request.session.target, grace_seconds=request.grace_seconds,
            listed=request.listed, now=time.time(), daily=daily, secret=secret,
            turn_seconds=request.turn_seconds)
        table = outcome.table
        try:
            version = await self.store.save(table.room_id, to_stored(table), 0, outcome.entries,
                                            facts.lobby_entry(table))
        except Exception as failure:
            log.exception("room %s: store write failed", table.room_id)
            raise errors.StoreUnavailable(f"the room could not be saved ({type(failure).__name__}); nothing "
                                          "was applied: retry") from None
        room = self.registry.open(replace(table, version=version))
        await self.shared.adopt(room, new=True)
        log.info("room created", extra={"fields": {"room": table.room_id, "ruleset": request.ruleset,
                                                   "listed": request.listed, "bot": table.options.bot}})
        self.lobby.changed()
        self.shared.lobby_changed()
        answer = outcome.answer
        await self._credit(room, member, answer["seat"], anonymous_clears=True)
        await self.enter(member, room, hash_token(str(answer["token"])), str(answer["token"]))
        return answer

    async def join(self, member: Member, room_id: str, wanted: int | None) -> JSON:
        """`join`: take a seat; the loser of a race for the last seat gets `SeatTaken`/`RoomFull`."""
        room = await self._room(room_id)
        here = self.members.get(member)
        # A connection already in this room (e.g. the host, unseated) keeps its identity.
        kept = here.token if here is not None and here.room is room else None
        token = kept or secrets.token_urlsafe(32)
        outcome = await self._apply(room, lambda table: seating.join(table, token, member.name, wanted))
        await self._credit(room, member, outcome.answer["seat"], anonymous_clears=True)
        # The connection leaves its previous room only once the seat is won: a refused join changes nothing.
        await self.enter(member, room, hash_token(token), token)
        return outcome.answer

    async def resume(self, member: Member, room_id: str, token: str) -> JSON:
        """`resume`: the token gives back the seat (and host rights) after a drop or a restart. The
        seat's claim is stored, so an older connection with this token loses the seat on every
        process (`SeatClaims`), and a seat the turn clock gave the bot comes back."""
        room = await self._room(room_id)
        async with self._moving.setdefault(member, asyncio.Lock()):
            return await self._resume(member, room, token)

    async def _resume(self, member: Member, room: LiveRoom, token: str) -> JSON:
        self._resuming.add(member)  # its own claim must not move it to the rail meanwhile
        self.outbox.hold(member)  # its first state after the request is the seat's (see `Outbox`)
        try:
            try:
                outcome = await self._apply(room, lambda table: seating.resume(table, token))
            except BaseException:
                where = self.room_of(member)
                if self.outbox.release(member) and where is not None:
                    self.outbox.send(where, member)  # refused: the state it was not sent meanwhile
                raise
            seat = outcome.answer["seat"]
            await self._credit(room, member, seat, anonymous_clears=False)
            participant = hash_token(token)
            for other, holder in list(room.members.items()):
                if other is not member and holder == participant:
                    await self.enter(other, room, None, None)  # the newest connection holds the seat
            claim = outcome.table.claims[seat] if seat is not None else 0
            self.outbox.release(member)
            await self.enter(member, room, participant, token, claim)  # pushes the seat's state
        finally:
            self.outbox.release(member)
            self._resuming.discard(member)
        return outcome.answer

    # ---------------------------------------------------------------- the claims port (SeatClaims)

    def outclaimed(self, room: LiveRoom) -> list[Member]:
        """The connections of `room` here whose seat was resumed since by a newer connection."""
        return [member for member in room.members if self._outclaimed(room, member)]

    def _outclaimed(self, room: LiveRoom, member: Member) -> bool:
        here = self.members.get(member)
        seat = facts.seat_of(room.table, room.members.get(member))
        if here is None or here.room is not room or seat is None or member in self._resuming:
            return False
        return here.claim < room.table.claims[seat]

    async def to_spectator(self, room: LiveRoom, member: Member) -> None:
        """A connection that lost its seat to a newer one stays in the room as a spectator (asked
        again here: the connection may have resumed the seat itself meanwhile)."""
        if member not in self.members:  # gone meanwhile
            return
        async with self._moving.setdefault(member, asyncio.Lock()):
            if self._outclaimed(room, member):
                log.info("seat resumed elsewhere", extra={"fields": {"room": room.room_id}})
                await self.enter(member, room, None, None)

    async def watch(self, member: Member, room_id: str) -> JSON:
        """`watch`: enter as a spectator. A room the store no longer holds but the archive does is not
        entered: the answer carries its records (`archived`)."""
        try:
            room = await self._room(room_id)
        except errors.NoSuchRoom:
            records = await self.room_reader.archived(room_id)
            return {"room_id": room_id, "seat": None, "archived": True, "records": records}
        await self.enter(member, room, None, None)
        return seating.watch(room.table).answer

    async def leave(self, member: Member) -> JSON:
        """`leave`: give up the seat (a bot plays it after the start) and leave the room."""
        here = self.current(member)
        room = here.room
        table = room.table
        if facts.seat_of(table, here.participant) is not None or facts.is_host(table, here.participant):
            await self._apply(room, lambda table: seating.leave(table, here.participant))
        await self.depart(member)
        return {"room_id": room.room_id}

    async def add_bot(self, member: Member, wanted: int | None, kind: str | None) -> JSON:
        """`add_bot` (host): a bot on an empty seat."""
        here = self.current(member)
        return await self._answer(here.room,
                                  lambda table: seating.add_bot(table, here.participant, wanted, kind))

    async def remove_bot(self, member: Member, seat: int) -> JSON:
        """`remove_bot` (host): the seat becomes empty."""
        here = self.current(member)
        return await self._answer(here.room, lambda table: seating.remove_bot(table, here.participant, seat))

    async def start(self, member: Member) -> JSON:
        """`start` (host): bots fill the empty seats and the first deal is dealt."""
        here = self.current(member)
        secret = secrets.token_hex(16)
        answer = await self._answer(here.room, lambda table: seating.start(table, here.participant, secret))
        log.info("game started", extra={"fields": {"room": here.room.room_id}})
        return answer

    async def act(self, member: Member, action: str, claimed_seat: int | None) -> JSON:
        """`act`: an action for the connection's own seat, through the same path as the bots."""
        here = self.current(member)
        room = here.room
        play.acting_seat(room.table, here.participant, claimed_seat)  # refused at once if not a player
        try:
            return await self._answer(room, lambda table: play.act(
                table, play.acting_seat(table, here.participant, claimed_seat), action))
        except errors.STALE:
            # The client probably acted on an old view: send it the current one with the refusal.
            self.outbox.send(room, member)
            raise

    async def ready(self, member: Member) -> JSON:
        """`ready`: the next deal starts when every connected human is ready."""
        here = self.current(member)
        return await self._answer(here.room, lambda table: play.ready(table, here.participant))

    async def end(self, member: Member) -> JSON:
        """`end_game` (host): the session ends now."""
        here = self.current(member)
        return await self._answer(here.room, lambda table: play.end(table, here.participant))

    async def hint(self, member: Member) -> JSON:
        """`hint`: what the heuristic bot would play in the connection's seat now (logged)."""
        here = self.current(member)
        table = here.room.table
        # The command is pure: the bot thinks off the event loop, and its answer is committed if the
        # table has not moved meanwhile (else it is asked again, on the current table).
        computed = await asyncio.to_thread(play.hint, table, here.participant)

        def command(current: Table) -> Outcome:
            return computed if current is table else play.hint(current, here.participant)

        return await self._answer(here.room, command)

    async def records(self, member: Member, room_id: str | None = None) -> JSON:
        """`get_records`: the finished deals of the connection's room (from the stored log when the
        live copy may be behind the store), or of the room `room_id` (`RoomRecords.of_room`)."""
        here = self.members.get(member)
        if room_id is not None and (here is None or here.room.room_id != room_id):
            return await self.room_reader.of_room(room_id)
        return await self.room_reader.of_own_room(self.current(member).room)

    async def say(self, member: Member, text: str | None, phrase: str | None) -> JSON:
        """`chat`: a line (free text or a quick phrase) to the room, on its own channel."""
        here = self.current(member)
        return await self.chat.say(here.room, member, here.participant, text, phrase)

    async def mute_chat(self, member: Member, seat: int, muted: bool) -> JSON:
        """`mute_chat` (host): mute or unmute a seat's chat for everyone."""
        here = self.current(member)
        return await self._answer(here.room,
                                  lambda table: chat.mute_seat(table, here.participant, seat, muted))

    async def play_again(self, member: Member) -> JSON:
        """`play_again`: a seated player asks for a new session at this table; it starts once every
        seated human has asked."""
        here = self.current(member)
        secret = secrets.token_hex(16)
        answer = await self._answer(here.room, lambda table: play.play_again(table, here.participant, secret))
        await self._credit(here.room, member, facts.seat_of(here.room.table, here.participant),
                           anonymous_clears=False)
        return answer

    def _heard_chat(self, room: LiveRoom, line: JSON) -> None:
        self.chat.heard(room, line)

    def send_state(self, member: Member) -> None:
        """`get_state`: a fresh `state` push to the connection."""
        self.outbox.send(self.current(member).room, member)

    async def _answer(self, room: LiveRoom, command: Command) -> JSON:
        return (await self._apply(room, command)).answer

    async def _apply(self, room: LiveRoom, command: Command) -> Outcome:
        """A player's command, judged again on the stored state when the live copy was behind it: after
        a lost compare-and-set (the room reloaded), or a refusal while the store holds a newer version
        (another process changed the room and this one has not heard yet)."""
        for attempt in range(1, ATTEMPTS + 1):
            try:
                outcome = await room.apply(command)
            except errors.Conflict:
                room.announce_reload()  # the connections here were behind too
                if attempt == ATTEMPTS:
                    raise
                continue
            except errors.NEVER_STALE:  # no catching up changes these (the classes say)
                raise
            except TableError:
                if attempt == ATTEMPTS or not await room.catch_up():
                    raise
                continue
            assert outcome is not None
            return outcome
        raise AssertionError("unreachable")

