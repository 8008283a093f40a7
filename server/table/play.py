"""Commands of a started table: act, ready, the next deal, end, abandon, play again, and hint. Pure,
like `seating.py`."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import replace

from ..bots import BotError, get_bot
from ..rules import IllegalAction, MalformedAction, RulesError, Session
from ..rules.deal import Deal
from . import clock, errors
from .facts import connected, current_deal_index, over, seat_of
from .outcome import Outcome
from .seating import check_host
from .state import JSON, SEATS, Hint, Table, deal_records, fork_session

BOT_BUDGET_MS = 20.0
HINT_BOT = "heuristic"


def decision_seed(deal: Deal, purpose: str, seat: int) -> str:
    """A deterministic seed for a bot's decision at this point of the deal: derived from the deal
    seed, never the seed itself (with it a bot could rebuild every hand)."""
    point = f"{purpose}:{seat}:{len(deal.log)}".encode()
    return hmac.new(str(deal.seed).encode(), point, hashlib.sha256).hexdigest()


def playing_session(table: Table) -> Session:
    """The session of a started table that is not over."""
    if table.session is None:
        raise errors.NotStarted("the game has not started yet (the host sends 'start')")
    if over(table):
        raise errors.SessionOver("the session is over")
    return table.session


def acting_seat(table: Table, participant: str | None, claimed: int | None) -> int:
    """The seat a connection acts for: its own (a spectator may not act, nor a player for another)."""
    seat = seat_of(table, participant)
    if seat is None:
        raise errors.SpectatorCannotAct("spectators may not act: join a seat to play")
    if claimed is not None and claimed != seat:
        raise errors.NotYourSeat(f"you hold seat {seat}, not seat {claimed}: a player acts only for their "
                                 "own seat")
    return seat


def act(table: Table, seat: int, action: str, *, by_bot: bool = False) -> Outcome:
    """An action for `seat`: the one path every action takes, a human's or a bot's (`by_bot`: the
    turn clock counts a player's own action differently from the bot's)."""
    session = playing_session(table)
    deal = session.deal
    if deal.finished:
        raise errors.IllegalAction("the deal is over: send 'ready' for the next deal")
    acting = deal.to_act()
    if seat not in acting:
        names = " or ".join(f"seat {s}" for s in sorted(acting))
        raise errors.NotYourTurn(f"not your turn: {names} to act")
    deal_number = session.deal_number
    forked = fork_session(session)
    try:
        events = forked.apply(seat, action)
    except MalformedAction as problem:
        raise errors.MalformedAction(problem.reason) from None
    except (IllegalAction, RulesError) as problem:
        raise errors.IllegalAction(problem.reason) from None
    canonical = forked.deal.log[-1][1]
    entries = [{"t": "act", "deal": deal_number, "seat": seat, "action": canonical}]
    finished = forked.deal.finished
    new = replace(table, session=forked, ready=frozenset() if finished else table.ready)
    new = clock.acted(new, seat, by_bot)
    if finished and forked.over:
        entries.append({"t": "session_over", "balances": list(forked.balances)})
    return Outcome(new, {"action": canonical, "seat": seat}, events, entries)


def ready(table: Table, participant: str | None) -> Outcome:
    """A seated player is ready for the next deal; it starts when every connected human is."""
    seat = seat_of(table, participant)
    if seat is None:
        raise errors.NotSeated("only a seated player can be ready")
    session = playing_session(table)
    if not session.deal.finished:
        raise errors.DealInProgress("the deal is still being played")
    new = replace(table, ready=table.ready | {seat})
    waiting = [s for s in SEATS if new.seats[s].kind == "human" and connected(new, s) and s not in new.ready]
    return Outcome(new, {"ready": sorted(new.ready), "waiting_for": waiting}, [],
                   [{"t": "ready", "deal": current_deal_index(session), "seat": seat}])


def next_deal(table: Table) -> Outcome:
    """Deal the next deal (the bot driver does, once everyone is ready)."""
    session = playing_session(table)
    if not session.deal.finished:
        raise errors.DealInProgress("the deal is still being played")
    forked = fork_session(session)
    deal = forked.next_deal()
    number = forked.deal_number
    return Outcome(replace(table, session=forked, ready=frozenset()), {"deal_number": number},
                   [{"type": "deal_started", "deal_number": number, "dealer": deal.dealer}],
                   [{"t": "next_deal", "deal": number}])


def end(table: Table, participant: str | None) -> Outcome:
    """Host: the session ends now."""
    check_host(table, participant)
    session = playing_session(table)
    balances = list(session.balances)
    return Outcome(replace(table, ended=True), {"balances": balances},
                   [{"type": "game_ended", "balances": balances}], [{"t": "ended", "balances": balances}])


def abandon(table: Table) -> Outcome:
    """Nobody came back: a started room left with no human for the abandonment period ends as it
    stands, as if the host had ended it (the room's owner applies it; the session is archived and never
    rated). `reason` tells the clients why."""
    session = playing_session(table)
    balances = list(session.balances)
    return Outcome(replace(table, ended=True), {"balances": balances},
                   [{"type": "game_ended", "balances": balances, "reason": "abandoned"}],
                   [{"t": "ended", "balances": balances, "reason": "abandoned"}])


def play_again(table: Table, participant: str | None, secret: str) -> Outcome:
    """A seated player asks for a new session at the same table ("Play again"): same seats, same
    options, bots stay. It starts (with the session secret `secret`) once every connected seated
    human has asked; until then the answer says who is still awaited."""
    seat = seat_of(table, participant)
    if seat is None:
        raise errors.NotSeated("only a seated player can ask to play again")
    if not over(table):
        raise errors.SessionNotOver("the session is still being played")
    if table.daily is not None:
        raise errors.DailyRoom("a daily challenge is played once: start another from the lobby")
    agreed = table.play_again | {seat}
    humans = [s for s in SEATS if table.seats[s].kind == "human" and (connected(table, s) or s == seat)]
    waiting = [s for s in humans if s not in agreed]
    asked: JSON = {"type": "play_again", "seat": seat, "waiting_for": waiting}
    if waiting:
        return Outcome(replace(table, play_again=agreed), {"started": False, "waiting_for": waiting},
                       [asked], [{"t": "play_again", "seat": seat}])
    assert table.session is not None
    options = table.options
    session = Session(options.ruleset, secret, options.house_rules, deals=options.deals,
                      target=options.target)
    past = (*table.past_records, *deal_records(table.session, table.hints))
    new = replace(table, session=session, ended=False, ready=frozenset(), hints=(), play_again=frozenset(),
                  clock=None, clock_misses={}, clock_takeover=frozenset(), clock_once=frozenset(),
                  past_records=past, session_number=table.session_number + 1)
    seats = [{"kind": s.kind, "name": s.name, "participant": None, "bot": s.bot} for s in new.seats]
    events = [asked, {"type": "session_started"},
              {"type": "deal_started", "deal_number": 0, "dealer": session.deal.dealer}]
    return Outcome(new, {"started": True, "waiting_for": []}, events,
                   [{"t": "play_again", "seat": seat},
                    {"t": "started", "config": session.config(), "seats": seats}])


def hint(table: Table, participant: str | None) -> Outcome:
    """What the heuristic bot would do in the player's seat now, from that seat's own view only. The
    hint is logged and marked on the deal's record (`hints`)."""
    seat = acting_seat(table, participant, None)
    if table.daily is not None:
        raise errors.HintsOff("a daily challenge gives no hints: every player plays the same deals alone")
    session = playing_session(table)
    deal = session.deal
    if deal.finished or seat not in deal.to_act():
        names = " or ".join(f"seat {s}" for s in sorted(deal.to_act())) or "nobody"
        raise errors.NotYourTurn(f"not your turn: {names} to act")
    try:
        seed = decision_seed(deal, "hint", seat)
        action = str(get_bot(HINT_BOT).decide(deal.view(seat), seed, BOT_BUDGET_MS))
    except BotError as problem:
        raise errors.IllegalAction(f"no hint: {problem}") from None
    number = session.deal_number
    mark = Hint(number, seat, len(deal.log))
    return Outcome(replace(table, hints=(*table.hints, mark)), {"action": action, "bot": HINT_BOT}, [],
                   [{"t": "hint", "deal": number, "seat": seat, "action_index": mark.action_index,
                     "action": action}])
