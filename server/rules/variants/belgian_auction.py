"""The turn logic of the Belgian auction: the trou, what each call changes, whose turn it is, the contract.

The state it changes is `belgian_state.AuctionState`; which calls are allowed is `belgian_refusals`; the
words, ladders and options come from the ruleset's seed file (`belgian_data.AuctionData`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..actions import ParsedAction
from ..cards import SUITS, rank_of
from ..errors import IllegalAction
from ..ruleset import Contract, DealFacts, Event
from .belgian_data import AuctionData, Call
from .belgian_refusals import refusal
from .belgian_state import SEATS, AuctionState


class BelgianAuction(AuctionState):
    """The auction of one deal of `couleur` or `belge-club`; it never changes state when it raises."""

    def __init__(self, data: AuctionData, deal: DealFacts) -> None:
        super().__init__(data, deal)
        self._announce_trou()
        if self.awaiting_answer is not None:
            self.turn = self.awaiting_answer
        else:
            self._advance((self.eldest - 1) % 4, [])

    # ---------------------------------------------------------------- the trou

    def _announce_trou(self) -> None:
        """D7 / D11: a hand of three (couleur: or four) aces makes a trou, announced before anyone speaks."""
        data = self.data
        aces = {seat: [card for card in self.hands[seat] if card[0] == "A"] for seat in SEATS}
        holders = [seat for seat in SEATS if len(aces[seat]) in data.trou_aces]
        if not holders:
            return
        holder = holders[0]
        trump: str | None
        lead: str | None
        if len(aces[holder]) == 3:
            ace = next(f"A{suit}" for suit in SUITS if f"A{suit}" not in self.hands[holder])
            partner = next(seat for seat in SEATS if ace in self.hands[seat])
            trump, lead, royal = ace[1], ace, False
        else:  # trou royal (D7): the royal trump, the highest card of it outside the four-ace hand
            trump, royal = data.royal_trump, True
            outside = [(card, seat) for seat in SEATS if seat != holder for card in self.hands[seat]
                       if card[1] == trump]
            lead, partner = max(outside, key=lambda pair: rank_of(pair[0]))
        self.silent = {holder, partner}
        if data.trou_answer:  # the club: the bouche-trou names trump or refuses (D11, D12)
            trump, lead = None, None
            self.awaiting_answer = partner
        if not data.trou_partner_leads_ace:
            lead = None
        self.trou = {"seat": holder, "partner": partner, "trump": trump, "royal": royal, "lead_card": lead}
        trou = data.call("trou", data.trou_level, trump, (holder, partner))
        self.standing[holder] = self.standing[partner] = trou

    def _answer_trou(self, seat: int, action: ParsedAction) -> list[Event]:
        """The club's bouche-trou names trump (the trou stands) or refuses with a call above trou (D11)."""
        assert self.trou is not None
        holder = self.trou["seat"]
        self.awaiting_answer = None
        if action.verb == "trump":
            suit = str(action.args[0])
            self.trou["trump"] = suit
            trou = self.data.call("trou", self.data.trou_level, suit, (holder, seat))
            self.standing[holder] = self.standing[seat] = trou
            return [{"type": "trou_answer", "seat": seat, "trump": suit}]
        del self.standing[holder]
        self.standing[seat] = self._new_call(seat, action)
        self.trou["refused"] = True
        return [{"type": "trou_refused", "seat": seat, "call": self.standing[seat].rung}]

    # ---------------------------------------------------------------- the Auction protocol

    def to_act(self) -> frozenset[int]:
        """The one seat to speak, or nobody once the auction is over."""
        return frozenset() if self.done or self.turn is None else frozenset((self.turn,))

    def legal_actions(self, seat: int) -> list[str]:
        """Exactly the actions `seat` may take now (for `accept`: the default form and higher levels)."""
        if seat not in self.legal_cache:
            self.legal_cache[seat] = self._legal(seat)
        return list(self.legal_cache[seat])

    @property
    def finished(self) -> bool:
        """Whether the auction has closed."""
        return self.done

    def apply(self, seat: int, action: ParsedAction) -> list[Event]:
        """Apply a call; raises `IllegalAction` naming the rule, before changing anything."""
        reason = refusal(self, seat, action, self.top(seat))
        if reason is not None:
            raise IllegalAction(reason)
        self.legal_cache, self.solo_cache = {}, {}
        events: list[Event] = []
        answering_trou = seat == self.awaiting_answer
        if answering_trou:
            events += self._answer_trou(seat, action)
        else:
            self._change(action.verb)(seat, action, events)
        self.spoken.add(seat)
        # After the bouche-trou's answer the two other players speak from eldest on (docs/rules.md §3).
        self._advance((self.eldest - 1) % 4 if answering_trou else seat, events)
        return events

    def contract(self) -> Contract | None:
        """The contract of the highest standing call; None for a tour de passe."""
        top = self.top()
        if top is None or top.kind == "proposal":
            return None
        holders = tuple(self.holders())
        extra: dict[str, Any] = {"call": top.rung}
        if top.kind == "trou":
            assert self.trou is not None
            holder, partner = self.trou["seat"], self.trou["partner"]
            extra["royal"] = self.trou["royal"]
            return Contract("trou", "trou", tuple(sorted((holder, partner))), top.level, top.suit,
                            leader=partner, lead_card=self.trou["lead_card"], team=True, extra=extra)
        if top.kind == "emballage":
            return Contract(top.rung, "emballage", tuple(sorted(top.seats)), top.level, top.suit, team=True,
                            extra=extra)
        if top.kind == "solo":
            return Contract(top.rung, "solo", holders, top.level, top.suit, extra=extra)
        if top.kind == "abondance":
            return Contract(top.rung, "abondance", holders, top.level, top.suit, leader=holders[0],
                            extra=extra)
        spec = self.data.calls[top.kind]
        if spec["family"] == "chelem":
            return Contract(top.kind, top.kind, holders, top.level, top.suit, leader=holders[0], extra=extra)
        extra["exact"] = True  # a misère takes no trick, a piccolo exactly one
        return Contract(top.kind, top.kind, holders, top.level, None,
                        discard=bool(spec.get("discard", False)), expose=spec.get("expose"), extra=extra)

    def public_state(self) -> dict[str, Any]:
        """What every seat and spectator may know about the auction (never a hidden card)."""
        top = self.top()
        lapsed = self.lapsed(self.turn)
        teams = []
        seen: set[int] = set()
        for call in self.standing.values():
            if call.kind == "emballage" and id(call) not in seen:
                seen.add(id(call))
                teams.append({"proposer": call.seats[0], "acceptor": call.seats[1], "suit": call.suit,
                              "level": call.level})
        return {
            "highest": None if top is None else {**top.describe(), "holders": self.holders()},
            "standing": [[seat, self.standing[seat].describe()] for seat in sorted(self.standing)],
            "open_proposals": [[seat, call.suit] for seat, call in sorted(self.standing.items())
                               if call.kind == "proposal" and call is not self.lapsed(seat)],
            "lapsed_proposal": None if lapsed is None else [lapsed.seats[0], lapsed.suit],
            "teams": teams,
            "bound": sorted(self.bound),
            "passed": sorted(self.passed),
            "first_turn": [seat for seat in SEATS if seat not in self.spoken and seat not in self.silent
                           and seat not in self.passed],
            "renewed": [[seat, suit] for seat, suit in sorted(self.renewed)],
            "silent": sorted(self.silent),
            "trou": None if self.trou is None else {k: v for k, v in self.trou.items() if k != "lead_card"},
            "awaiting_trou_answer": self.awaiting_answer,
            "reference_trump": self.reference_trump,
        }

    def opening_events(self) -> list[Event]:
        """The trou, announced by the engine before anyone speaks."""
        if self.trou is None:
            return []
        public = {k: v for k, v in self.trou.items() if k not in ("lead_card", "refused")}
        return [{"type": "trou", **public}]

    # ---------------------------------------------------------------- what each call changes

    def _change(self, verb: str) -> Callable[[int, ParsedAction, list[Event]], None]:
        """The change a verb makes: the renewal verb's, a common verb's, else a call of its own."""
        if verb == self.data.renewal_verb:
            return self._renew
        changes = {"pass": self._pass_turn, "propose": self._propose, "accept": self._accept,
                   "raise": self._raise}
        return changes.get(verb, self._call_alone)

    def _pass_turn(self, seat: int, action: ParsedAction, events: list[Event]) -> None:
        self._pass(seat)

    def _renew(self, seat: int, action: ParsedAction, events: list[Event]) -> None:
        own = self.standing.get(seat)
        assert own is not None and own.suit is not None
        self.renewed.add((seat, own.suit))
        self.engaged.add(seat)

    def _propose(self, seat: int, action: ParsedAction, events: list[Event]) -> None:
        suit = str(action.args[0])
        self.standing[seat] = self.data.call("proposal", self.data.proposal_level, suit, (seat,))
        self.proposed[seat].add(suit)
        self.engaged.add(seat)

    def _accept(self, seat: int, action: ParsedAction, events: list[Event]) -> None:
        suit = str(action.args[0])
        level = self.accept_levels(seat, suit)[0] if action.args[1] is None else int(str(action.args[1]))
        proposer = self.open_proposal(suit, seat)
        assert proposer is not None
        team = self.data.call("emballage", level, suit, (proposer, seat))
        self.standing[proposer] = self.standing[seat] = team
        self.bound |= {proposer, seat}
        self.partnered[proposer].add(suit)
        self.engaged.add(seat)
        events.append({"type": "team", "proposer": proposer, "acceptor": seat, "suit": suit, "level": level})

    def _raise(self, seat: int, action: ParsedAction, events: list[Event]) -> None:
        own = self.standing[seat]
        team = self.data.call("emballage", int(str(action.args[0])), own.suit, own.seats)
        for member in own.seats:
            self.standing[member] = team

    def _call_alone(self, seat: int, action: ParsedAction, events: list[Event]) -> None:
        """A solo, abondance, misère, piccolo or chelem; the club's team speaker going alone leaves it."""
        if seat in self.standing and self.speaks_for_team(seat):
            self._leave_team(seat)
        self.standing[seat] = self._new_call(seat, action)
        if action.verb == "solo":
            self.bound.add(seat)

    def _new_call(self, seat: int, action: ParsedAction) -> Call:
        """The call made by a solo, abondance, misère, piccolo or chelem action."""
        verb, args = action.verb, action.args
        if verb in ("solo", "abondance"):
            return self.data.call(verb, int(str(args[0])), str(args[1]), (seat,))
        spec = self.data.calls[verb]
        if spec["family"] == "chelem":
            suit = args[0] if isinstance(args[0], str) else None
            return self.data.call(verb, spec["level"], suit, (seat,))
        return self.data.call(verb, int(spec.get("level", 0)), None, (seat,))

    def _pass(self, seat: int) -> None:
        """Passing is final; the seat's standing call (a team's, when its speaker passes) is withdrawn."""
        self.passed.add(seat)
        call = self.standing.get(seat)
        if call is not None and call.kind == "emballage":
            self._leave_team(seat)
        self.standing.pop(seat, None)

    def _leave_team(self, speaker: int) -> None:
        """The team's speaker passes (or, in the club, goes alone): the team's call is withdrawn, and its
        proposer, still bound, speaks again on his next turn (a solo in the team's suit, or pass)."""
        call = self.standing.pop(speaker)
        proposer = call.seats[0]
        self.standing.pop(proposer, None)
        assert call.suit is not None
        self.speaker_passed[proposer] = call.suit

    def _advance(self, seat: int, events: list[Event]) -> None:
        """Give the turn to the next seat clockwise that may speak; close the auction if there is none."""
        for step in range(1, 5):
            candidate = (seat + step) % 4
            call = self.standing.get(candidate)
            if (self.data.auto_pass_after_renewal and call is not None and call.kind == "proposal"
                    and call.suit is not None and (candidate, call.suit) in self.renewed
                    and candidate not in self.passed):
                self._pass(candidate)  # the club's maintien: still nobody accepts, he passes automatically
                events.append({"type": "auto_pass", "seat": candidate})
                continue
            if self.may_speak(candidate):
                self.turn = candidate
                return
        self.turn = None
        self.done = True

    # ---------------------------------------------------------------- legal calls

    def candidates(self, seat: int) -> list[ParsedAction]:
        """Every call that could be legal now, in the order `legal_actions` lists them: trump, pass,
        renewal, raises, proposals, the acceptances (default level first, written without its number),
        solos, abondances, then the words of [calls] in the seed's order."""
        accepts: list[ParsedAction] = []
        for suit in SUITS:
            levels = self.accept_levels(seat, suit)
            if levels:
                accepts.append(ParsedAction("accept", (suit, None), f"accept {suit}"))
                accepts += [ParsedAction("accept", (suit, level), f"accept {suit} {level}")
                            for level in levels[1:]]
        before, after = self.data.candidate_calls
        return [*before, *accepts, *after]

    def _legal(self, seat: int) -> list[str]:
        if seat not in self.to_act():
            return []
        top = self.top(seat)
        return [action.text for action in self.candidates(seat)
                if refusal(self, seat, action, top) is None]

