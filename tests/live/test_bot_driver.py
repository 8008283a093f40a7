"""The bot driver and the scheduler (server/live/bots.py): the driver acts only for the seats
`facts.bot_work` names (never a human's), through `play.act` with `by_bot=True`, only where the
ownership port says this process owns the room, and tries again after a write the store refused; the
scheduler gives its few slots to bot moves only while no human request is served (or once the humans
have held them back too long)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from live_units import Built, started, stored_room, waiting_table
from shared_peers import eventually

from server.live import BotDriver, BotScheduler, LiveRoom
from server.live import bots as bots_module
from server.store import MemoryStore
from server.table import Outcome, Table, facts
from server.table import play as table_play


class Owns:
    """An ownership port answering as set."""

    def __init__(self, owns: bool = True) -> None:
        self.answer = owns

    def owns(self, room: LiveRoom) -> bool:
        return self.answer


class Acts:
    """Records every `play.act` the driver makes: (seat, by_bot, the seat `bot_work` named then)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[tuple[int, bool, int | None]] = []
        real = table_play.act  # the driver's one path to a move

        def act(table: Table, seat: int, action: str, *, by_bot: bool = False) -> Outcome:
            self.calls.append((seat, by_bot, facts.bot_work(table, time.monotonic())))
            outcome: Outcome = real(table, seat, action, by_bot=by_bot)
            return outcome

        monkeypatch.setattr(table_play, "act", act)


async def driven(built: Built, owner: Owns, store: MemoryStore | None = None) -> tuple[BotDriver, LiveRoom]:
    driver = BotDriver(BotScheduler(), delay=0.0, owner=owner)
    room = await stored_room(built, [driver], store)
    return driver, room


def human_at_seat_0_to_act(room: LiveRoom) -> bool:
    session = room.table.session
    return session is not None and 0 in session.deal.to_act()


async def test_the_driver_plays_the_bot_seats_and_waits_for_the_human(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    acts = Acts(monkeypatch)
    driver, room = await driven(started(waiting_table()), Owns())
    try:
        driver.opened(room)
        await eventually(lambda: not driver.busy(room), timeout=10, what="the bots done")
        assert human_at_seat_0_to_act(room), "the bots stop at the human's turn"
        assert facts.bot_work(room.table, time.monotonic()) is None
        assert acts.calls, "seat 1 speaks first: a bot"
        assert all(seat != 0 for seat, _, _ in acts.calls), "never for the human's seat"
        assert all(by_bot for _, by_bot, _ in acts.calls)
        assert all(seat == named for seat, _, named in acts.calls), "only the seat bot_work names"
    finally:
        await driver.stop()


async def test_a_room_of_bots_is_played_to_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    acts = Acts(monkeypatch)
    driver, room = await driven(started(waiting_table(seat=None)), Owns())
    try:
        driver.opened(room)
        await eventually(lambda: facts.over(room.table), timeout=30, what="the session over")
        assert {seat for seat, _, _ in acts.calls} == {0, 1, 2, 3}
        assert room.version == len(acts.calls) + 1, "every move stored (and no other change)"
    finally:
        await driver.stop()


async def test_no_bot_moves_where_the_room_is_not_owned(monkeypatch: pytest.MonkeyPatch) -> None:
    acts = Acts(monkeypatch)
    owner = Owns(False)
    driver, room = await driven(started(waiting_table(seat=None)), owner)
    try:
        driver.opened(room)
        await asyncio.sleep(0.2)
        assert acts.calls == [] and not driver.busy(room) and room.version == 1
        owner.answer = True
        await driver.owned(room)
        await eventually(lambda: len(acts.calls) >= 4, timeout=10, what="bots moving once owned")
        await driver.disowned(room)
        await asyncio.sleep(0.05)
        moves = len(acts.calls)
        await asyncio.sleep(0.2)
        assert len(acts.calls) == moves and not driver.busy(room), "handed over: the loop stopped"
    finally:
        await driver.stop()


class RefusingStore(MemoryStore):
    """A memory store that refuses its next `refusals` writes."""

    def __init__(self, refusals: int) -> None:
        super().__init__()
        self.refusals = refusals

    async def save(self, room_id: str, state: Any, expected_version: int, log: Any, lobby_entry: Any) -> int:
        if self.refusals > 0 and expected_version > 0:
            self.refusals -= 1
            raise ConnectionError("the store refused the write")
        return await super().save(room_id, state, expected_version, log, lobby_entry)


async def test_a_move_the_store_refused_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots_module, "BOT_RETRY_SECONDS", 0.05)
    store = RefusingStore(refusals=2)
    driver, room = await driven(started(waiting_table(seat=None)), Owns(), store)
    try:
        driver.opened(room)
        await eventually(lambda: room.version >= 3, timeout=10, what="moves stored after the refusals")
        assert store.refusals == 0
    finally:
        await driver.stop()


async def test_humans_go_first_and_bots_wait_in_line() -> None:
    scheduler = BotScheduler(slots=1, yield_seconds=30.0)
    entered: list[str] = []

    async def bot(name: str, hold: float = 0.0) -> None:
        async with scheduler.bot_move():
            entered.append(name)
            await asyncio.sleep(hold)

    with scheduler.human_request():
        first = asyncio.create_task(bot("first"))
        await asyncio.sleep(0.1)
        assert entered == [], "no bot move starts while a human's request is served"
    await asyncio.sleep(0)
    await first
    assert entered == ["first"]

    slow, queued = asyncio.create_task(bot("slow", 0.1)), asyncio.create_task(bot("queued"))
    await asyncio.sleep(0.05)
    assert entered == ["first", "slow"], "one slot: the next waits"
    await asyncio.gather(slow, queued)
    assert entered == ["first", "slow", "queued"]


async def test_humans_hold_the_bots_back_for_a_bounded_time() -> None:
    scheduler = BotScheduler(slots=1, yield_seconds=0.1)
    moved = asyncio.Event()

    async def bot() -> None:
        async with scheduler.bot_move():
            moved.set()

    with scheduler.human_request():
        task = asyncio.create_task(bot())
        await asyncio.sleep(0.03)
        assert not moved.is_set()
        await asyncio.wait_for(moved.wait(), timeout=5)  # still serving the human: the bot goes anyway
    await task
