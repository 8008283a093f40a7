"""The bot driver: plays the seats bots hold (or take over) and deals the next deal, through the same
commands as the players; and the scheduler that serves human requests before bot moves.

Where a bot thinks: the random bot on the event loop (it costs nothing), the heuristic in a thread, and
the searching bots (`POOLED_BOTS`: the expert, up to a few hundred milliseconds of CPU) in a process pool
(`server/bots/pool.py`), so that no decision holds the event loop or the GIL while humans act at other
tables. A decision is a pure function of the seat's view and the derived seed, wherever it runs."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from ..bots import Bot, BotError, get_bot
from ..bots.pool import DecisionPool
from ..table import Outcome, Table, TableError, errors, facts, play
from .change import CommittedChange
from .room import LiveRoom, Owner, RoomListener, owns_every_room

log = logging.getLogger("whist.rooms")

BOT_SLOTS = 4  # bot moves in progress at once, over all tables
# How long a bot move waits for the human requests in progress to finish before it goes anyway (so a
# stream of requests cannot stop the bots).
BOT_YIELD_SECONDS = 0.05
BOT_RETRY_SECONDS = 1.0  # after a bot move the store did not take
POOLED_BOTS = frozenset({"expert"})  # bots whose decisions run in the process pool


class BotObserver(Protocol):
    """What the driver reports (a `server.metrics.Metrics` is one)."""

    def count_action(self, by: str) -> None:
        """One deal action applied; `by` is "bot" here."""

    def observe_action_to_push(self, seconds: float) -> None:
        """From a bot's decision made to its outcome pushed to every connection of the room."""

    def observe_bot_decision(self, bot: str, seconds: float) -> None:
        """How long a bot of kind `bot` took to decide."""


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


class BotDriver(RoomListener):
    """After every change of a room, makes sure its bot loop runs if a bot has something to do.

    A bot sees exactly its seat's view and a seed derived from the deal seed; its action goes through
    `play.act` like a human's. A move the store did not take is retried after `BOT_RETRY_SECONDS`.
    """

    def __init__(self, scheduler: BotScheduler, delay: float, observer: BotObserver | None = None,
                 pool_workers: int = 1, owner: Owner = owns_every_room) -> None:
        self.scheduler = scheduler
        self.delay = delay
        self.owner = owner  # whether this process runs the room's bots (several processes: its owner only)
        self.observer = observer
        self.pool_workers = pool_workers
        self.pool: DecisionPool | None = None  # started at the first pooled decision
        self._bots: dict[str, Bot] = {}
        self._tasks: dict[LiveRoom, asyncio.Task[None]] = {}
        self._retries: dict[LiveRoom, asyncio.TimerHandle] = {}

    def bot(self, kind: str) -> Bot:
        """One bot object per kind (bots are stateless between decisions)."""
        if kind not in self._bots:
            self._bots[kind] = get_bot(kind)
        return self._bots[kind]

    def committed(self, room: LiveRoom, change: CommittedChange) -> None:
        """Wake the room's bots."""
        self.kick(room)

    def opened(self, room: LiveRoom) -> None:
        """A loaded room's bots play on."""
        self.kick(room)

    async def owned(self, room: LiveRoom) -> None:
        """This process runs the room's bots from now on."""
        self.kick(room)

    async def disowned(self, room: LiveRoom) -> None:
        """Another process runs the room's bots now."""
        self.closed(room)

    def may_run(self, room: LiveRoom) -> bool:
        """Whether this process runs the room's bots (it owns the room)."""
        return self.owner.owns(room)

    def closed(self, room: LiveRoom) -> None:
        """Stop the room's bot loop."""
        task = self._tasks.pop(room, None)
        if task is not None:
            task.cancel()
        retry = self._retries.pop(room, None)
        if retry is not None:
            retry.cancel()

    def busy(self, room: LiveRoom) -> bool:
        """Whether the room's bot loop runs."""
        task = self._tasks.get(room)
        return task is not None and not task.done()

    async def stop(self) -> None:
        """Cancel every bot loop and wait for them."""
        tasks = list(self._tasks.values())
        for room in list(self._tasks):
            self.closed(room)
        await asyncio.gather(*tasks, return_exceptions=True)
        if self.pool is not None:
            pool, self.pool = self.pool, None
            await asyncio.get_running_loop().run_in_executor(None, pool.close)

    def kick(self, room: LiveRoom) -> None:
        """Make sure the bot loop runs if a bot may have something to do."""
        if self.busy(room) or not self.may_run(room) or facts.bot_work(room.table, time.monotonic()) is None:
            return
        self._tasks[room] = asyncio.get_running_loop().create_task(self._loop(room))

    async def _loop(self, room: LiveRoom) -> None:
        try:
            while True:
                work = facts.bot_work(room.table, time.monotonic())
                if work is None or not self.may_run(room):
                    return
                await asyncio.sleep(self.delay)  # 0: let the other rooms and connections run
                # Only a few bot steps run at once, whatever the number of tables, and none starts
                # while a human's request is being served (see `BotScheduler`, docs/benchmarks.md).
                async with self.scheduler.bot_move():
                    await self._step(room, work)
        except TableError as problem:
            # A write the store refused (or lost to a conflict) changed nothing: try again shortly,
            # or the table would wait for a bot that never moves.
            log.warning("room %s: bot move not stored, retrying: %s", room.room_id, problem.message)
            self._retries[room] = asyncio.get_running_loop().call_later(BOT_RETRY_SECONDS, self.kick, room)
        except Exception:
            log.exception("room %s: bot loop failed", room.room_id)

    async def _step(self, room: LiveRoom, work: int) -> None:
        """One bot move (or dealing the next deal), re-checked when applied."""
        def still(table: Table, version: int | None = None) -> bool:
            now = time.monotonic()
            return facts.bot_work(table, now) == work and (version is None or table.version == version)

        if work == facts.NEXT_DEAL:
            await room.apply(lambda table: play.next_deal(table) if still(table) else None, human=False)
            return
        table = room.table
        if not still(table) or table.session is None:
            return
        deal = table.session.deal
        kind = table.seats[work].bot or table.options.bot
        started = time.perf_counter()
        action = await self.decide(kind, deal.view(work), play.decision_seed(deal, "bot", work))
        decided = time.perf_counter()

        def move(current: Table) -> Outcome | None:
            # The table may have moved on meanwhile (the player came back, a conflict reloaded it).
            return play.act(current, work, action, by_bot=True) if still(current, table.version) else None

        outcome = await room.apply(move, human=False)
        if self.observer is not None:
            self.observer.observe_bot_decision(kind, decided - started)
            if outcome is not None:  # applied, stored and pushed to the room's connections
                self.observer.count_action("bot")
                self.observer.observe_action_to_push(time.perf_counter() - decided)

    async def decide(self, kind: str, view: dict[str, Any], seed: str) -> str:
        """The action bot `kind` takes in `view` (see the module's note on where it thinks)."""
        try:
            if kind in POOLED_BOTS:
                if self.pool is None:
                    self.pool = DecisionPool(self.pool_workers)
                return await self.pool.decide(kind, view, seed, play.BOT_BUDGET_MS)
            bot = self.bot(kind)
            if kind == "random":
                return str(bot.decide(view, seed, play.BOT_BUDGET_MS))
            return str(await asyncio.to_thread(bot.decide, view, seed, play.BOT_BUDGET_MS))
        except BotError as problem:
            raise errors.IllegalAction(f"bot {kind} failed: {problem}") from None
        except BrokenProcessPool:
            # A worker died (killed, out of memory): a fresh pool serves the retry (the loop retries a
            # table error after BOT_RETRY_SECONDS).
            log.exception("bot decision pool broken; starting a new one")
            self.pool = None
            raise errors.IllegalAction(f"bot {kind} could not decide (its worker stopped)") from None
