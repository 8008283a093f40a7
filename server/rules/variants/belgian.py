"""The auction shared by the two Belgian rulesets: whist à la couleur (RULES.md §2) and the club rules (§3).

Both read their ladder and auction options from `seeds/<name>.toml`; this module holds the turn logic:
proposals and acceptance, the acceptor speaking for the team, raising, lapse and renewal (or the club's
maintien), solos, first-turn calls, misères that may be equalled, the trou, and the end of the auction.

Each seat holds at most one *standing* call (a team's call is shared by its two members). A proposal
whose proposer's turn comes back has lapsed: it still stands (nothing lower may be called over it) until
its proposer renews it, replaces it or passes. A call must rank above the highest standing call; only a
misère may equal the current misère. See docs/belgian-rules.md for how each gap was settled.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..actions import Arg, ParsedAction
from ..cards import SUIT_NAMES, SUITS, rank_of
from ..errors import IllegalAction
from ..ruleset import Contract, DealFacts, DealInProgress, Event, Ruleset

SEATS = (0, 1, 2, 3)

#: Verbs common to both Belgian rulesets (the renewal verb and the extra calls come from each ruleset).
BELGIAN_VOCABULARY: dict[str, tuple[Arg, ...]] = {
    "propose": (Arg.SUIT,),
    "accept": (Arg.SUIT, Arg.OPTIONAL_LEVEL),
    "raise": (Arg.LEVEL,),
    "solo": (Arg.LEVEL, Arg.SUIT),
    "abondance": (Arg.LEVEL, Arg.SUIT),
    "petite-misere": (),
    "grande-misere": (),
    "grand-chelem": (Arg.SUIT_OR_NT,),
}


@dataclass(frozen=True, slots=True)
class Call:
    """A standing call: what it is, who holds it and where it ranks."""

    kind: str  # "proposal", "emballage", "solo", "abondance", "trou" or a word of the seed's [calls]
    level: int
    suit: str | None
    seats: tuple[int, ...]  # a team: (proposer, acceptor); the trou: (holder, partner)
    key: tuple[int, int]  # (ladder rank, suit rank): calls compare by this

    @property
    def rung(self) -> str:
        """The ladder name: "emballage 9", "solo 6", "trou", "petite-misere"..."""
        if self.kind == "proposal":
            return "emballage 8"
        if self.kind in ("emballage", "solo", "abondance"):
            return f"{self.kind} {self.level}"
        return self.kind

    def describe(self) -> dict[str, Any]:
        """The call as JSON-ready public data."""
        return {"call": self.rung, "kind": self.kind, "level": self.level, "suit": self.suit,
                "seats": list(self.seats)}


class BelgianRuleset(Ruleset):
    """Common data and hooks of `couleur` and `belge-club`; subclasses add their scoring."""

    def __init__(self) -> None:
        super().__init__()
        auction = self.data["auction"]
        self.suit_order: list[str] = list(auction["suit_order"])
        self.ladder: dict[str, int] = {rung: rank for rank, rung in enumerate(auction["ladder"])}
        self.emballage_levels: list[int] = list(auction["emballage_levels"])
        self.solo_levels: list[int] = list(auction["solo_levels"])
        self.abondance_levels: list[int] = list(auction["abondance_levels"])
        self.renewal_verb: str = auction["renewal"]
        self.auto_pass_after_renewal: bool = auction["auto_pass_after_renewal"]
        self.solo_rule: str = auction["solo_rule"]
        # Whether a team's speaker, outbid, may leave the team with a solo: a boolean, or the name of
        # the house rule that decides it (the club: "acceptor_may_solo").
        self.speaker_may_solo: bool | str = auction.get("speaker_may_solo", False)
        self.trou_aces: list[int] = list(auction["trou_aces"])
        self.trou_answer: bool = auction["trou_answer"]
        self.trou_level: int = auction["trou_level"]
        self.trou_partner_leads_ace: bool = auction["trou_partner_leads_ace"]
        self.royal_trump: str = auction["royal_trump"]
        self.calls: dict[str, dict[str, Any]] = dict(self.data["calls"])
        self._keys: dict[tuple[str, int, str | None], tuple[int, int]] = {}

    def key(self, kind: str, level: int, suit: str | None) -> tuple[int, int]:
        """Where a call ranks: its rung, then its suit (hearts > diamonds > clubs > spades; NT above)."""
        found = self._keys.get((kind, level, suit))
        if found is None:
            found = self._keys[(kind, level, suit)] = self._rank(kind, level, suit)
        return found

    # -- ranking

    def _rank(self, kind: str, level: int, suit: str | None) -> tuple[int, int]:
        rung = Call(kind, level, suit, (), (0, 0)).rung
        if kind in self.calls and self.calls[kind]["family"] != "chelem":
            return (self.ladder[rung], 0)
        suit_rank = len(self.suit_order) if suit is None else self.suit_order.index(suit)
        return (self.ladder[rung], suit_rank)

    def call(self, kind: str, level: int, suit: str | None, seats: tuple[int, ...]) -> Call:
        """Build a call with its ranking key."""
        return Call(kind, level, suit, seats, self.key(kind, level, suit))

    def speaker_solo_allowed(self, house_rules: Mapping[str, Any]) -> bool:
        """Whether an outbid team speaker may call a solo instead of raising (the club's "or accepted")."""
        flag = self.speaker_may_solo
        return bool(house_rules[flag]) if isinstance(flag, str) else bool(flag)

    def call_option(self, word: str, option: str, house_rules: Mapping[str, Any], default: bool) -> bool:
        """A flag of a [calls] entry: a boolean, or the name of the house rule that decides it."""
        value = self.calls[word].get(option, default)
        return bool(house_rules[value]) if isinstance(value, str) else bool(value)

    # -- ruleset hooks

    @cached_property
    def candidate_calls(self) -> tuple[list[ParsedAction], list[ParsedAction]]:
        """The calls of the vocabulary listed before the acceptances, and after them (see
        `BelgianAuction._candidates`); built once."""
        before = [ParsedAction("trump", (suit,), f"trump {suit}") for suit in SUITS]
        before += [ParsedAction("pass", (), "pass"), ParsedAction(self.renewal_verb, (), self.renewal_verb)]
        before += [ParsedAction("raise", (level,), f"raise {level}") for level in self.emballage_levels]
        before += [ParsedAction("propose", (suit,), f"propose {suit}") for suit in SUITS]
        after = [ParsedAction("solo", (level, suit), f"solo {level} {suit}")
                 for suit in SUITS for level in self.solo_levels]
        after += [ParsedAction("abondance", (level, suit), f"abondance {level} {suit}")
                  for level in self.abondance_levels for suit in SUITS]
        for word, spec in self.calls.items():
            if spec["family"] == "chelem":
                after += [ParsedAction(word, (suit,), f"{word} {suit or 'NT'}") for suit in (*SUITS, None)]
            else:
                after.append(ParsedAction(word, (), word))
        return before, after

    def new_auction(self, deal: DealFacts) -> BelgianAuction:
        """Start the auction (after the trou, if any, is announced)."""
        return BelgianAuction(self, deal)

    def next_dealer(self, dealer: int, thrown_in: bool) -> int:
        """After a tour de passe the same dealer redeals; otherwise the deal moves clockwise."""
        return dealer if thrown_in else (dealer + 1) % 4

    def next_multiplier(self, multiplier: int, thrown_in: bool) -> int:
        """After a tour de passe the next played deal counts double; passes in a row do not double again."""
        return int(self.data["deal"]["pass_multiplier"]) if thrown_in else 1

    def trump_options(self, deal: DealFacts, contract: Contract) -> list[str | None]:
        """Trump is always named in the call itself; nobody names it after the auction."""
        return [contract.trump]

    def implied_tricks(self, deal: DealInProgress, seat: int, action: ParsedAction) -> int | None:
        """A proposal or its renewal: the lowest emballage; `accept <suit>`: the level it stands for;
        the bouche-trou naming trump: the trou's level; a call of [calls]: its level (0 for a misère)."""
        if action.verb in ("propose", self.renewal_verb):
            return self.emballage_levels[0]
        if action.verb == "accept" and isinstance(deal.auction, BelgianAuction):
            levels = deal.auction.accept_levels(seat, str(action.args[0]))
            return levels[0] if levels else None
        if action.verb == "trump" and deal.contract is None:
            return self.trou_level
        if action.verb in self.calls:
            return int(self.calls[action.verb].get("level", 0))
        return super().implied_tricks(deal, seat, action)

    def adjust_action_info(self, deal: DealInProgress, seat: int, action: ParsedAction,
                           info: dict[str, Any]) -> dict[str, Any]:
        """The bouche-trou naming trump commits the trou's team."""
        if action.verb == "trump" and deal.contract is None:
            info["commitment"] = "team"
        return super().adjust_action_info(deal, seat, action, info)

    @staticmethod
    def made(contract: Contract, taken: int) -> bool:
        """Whether `taken` tricks fulfil the contract: exactly 0 (misère) or 1 (piccolo), else at least."""
        if contract.extra.get("exact"):
            return taken == contract.level
        return taken >= contract.level


class BelgianAuction:
    """The auction of one deal of `couleur` or `belge-club`; it never changes state when it raises."""

    def __init__(self, rules: BelgianRuleset, deal: DealFacts) -> None:
        self.rules = rules
        self.house_rules = deal.house_rules
        self.hands = [frozenset(hand) for hand in deal.dealt]
        self.suits_held = [frozenset(card[1] for card in hand) for hand in deal.dealt]
        self._legal_cache: dict[int, list[str]] = {}  # emptied by every change
        self._solo_cache: dict[int, list[str]] = {}  # likewise
        self.eldest = deal.eldest
        self.reference_trump = deal.turn_up[1] if deal.turn_up else None
        self.standing: dict[int, Call] = {}
        self.passed: set[int] = set()
        self.bound: set[int] = set()
        self.spoken: set[int] = set()
        self.engaged: set[int] = set()  # proposed, renewed (maintained) or accepted: the club's solo rule
        self.proposed: dict[int, set[str]] = {seat: set() for seat in SEATS}
        self.partnered: dict[int, set[str]] = {seat: set() for seat in SEATS}  # proposals that were accepted
        self.renewed: set[tuple[int, str]] = set()
        self.speaker_passed: dict[int, str] = {}  # team proposer -> the team's suit, once its speaker passed
        self.silent: set[int] = set()
        self.trou: dict[str, Any] | None = None
        self.awaiting_answer: int | None = None
        self.turn: int | None = None
        self.done = False
        self._announce_trou()
        if self.awaiting_answer is not None:
            self.turn = self.awaiting_answer
        else:
            self._advance((self.eldest - 1) % 4, [])

    def clone(self) -> BelgianAuction:
        """An independent copy (calls are immutable and shared), for `Deal.clone`."""
        twin = BelgianAuction.__new__(BelgianAuction)
        twin.__dict__.update(self.__dict__)
        twin.standing = dict(self.standing)
        twin._legal_cache, twin._solo_cache = {}, {}
        twin.passed, twin.bound = set(self.passed), set(self.bound)
        twin.spoken, twin.engaged = set(self.spoken), set(self.engaged)
        twin.proposed = {seat: set(suits) for seat, suits in self.proposed.items()}
        twin.partnered = {seat: set(suits) for seat, suits in self.partnered.items()}
        twin.renewed = set(self.renewed)
        twin.speaker_passed = dict(self.speaker_passed)
        twin.silent = set(self.silent)
        twin.trou = dict(self.trou) if self.trou is not None else None
        return twin

    # ---------------------------------------------------------------- the trou

    def _announce_trou(self) -> None:
        """D7 / D11: a hand of three (couleur: or four) aces makes a trou, announced before anyone speaks."""
        aces = {seat: [card for card in self.hands[seat] if card[0] == "A"] for seat in SEATS}
        holders = [seat for seat in SEATS if len(aces[seat]) in self.rules.trou_aces]
        if not holders:
            return
        holder = holders[0]
        trump: str | None
        lead: str | None
        if len(aces[holder]) == 3:
            ace = next(f"A{suit}" for suit in SUITS if f"A{suit}" not in self.hands[holder])
            partner = next(seat for seat in SEATS if ace in self.hands[seat])
            trump, lead, royal = ace[1], ace, False
        else:  # trou royal (D7): hearts, the highest heart outside the four-ace hand
            trump, royal = self.rules.royal_trump, True
            outside = [(card, seat) for seat in SEATS if seat != holder for card in self.hands[seat]
                       if card[1] == trump]
            lead, partner = max(outside, key=lambda pair: rank_of(pair[0]))
        self.silent = {holder, partner}
        if self.rules.trou_answer:  # the club: the bouche-trou names trump or refuses (D11, D12)
            trump, lead = None, None
            self.awaiting_answer = partner
        if not self.rules.trou_partner_leads_ace:
            lead = None
        self.trou = {"seat": holder, "partner": partner, "trump": trump, "royal": royal, "lead_card": lead}
        trou = self.rules.call("trou", self.rules.trou_level, trump, (holder, partner))
        self.standing[holder] = self.standing[partner] = trou

    # ---------------------------------------------------------------- standing calls

    def _top(self, seat: int | None = None) -> Call | None:
        """The highest live call; for the seat to act, its own lapsed proposal no longer counts."""
        lapsed = self._lapsed(seat)
        live = [call for call in self.standing.values() if call is not lapsed]
        return max(live, key=lambda call: call.key) if live else None

    def _top_key(self, seat: int | None = None) -> tuple[int, int]:
        top = self._top(seat)
        return top.key if top is not None else (-1, -1)

    def _lapsed(self, seat: int | None) -> Call | None:
        """The proposal of `seat` if it is its turn and nobody accepted it: it has lapsed (D6)."""
        call = self.standing.get(seat) if seat is not None and seat == self.turn else None
        return call if call is not None and call.kind == "proposal" else None

    def _holders(self) -> list[int]:
        top = self._top()
        return [] if top is None else sorted(s for s, call in self.standing.items() if call.key == top.key)

    def _speaks_for_team(self, seat: int) -> bool:
        call = self.standing.get(seat)
        return call is not None and call.kind == "emballage" and call.seats[1] == seat

    def _may_speak(self, seat: int) -> bool:
        if seat in self.passed or seat in self.silent:
            return False
        call = self.standing.get(seat)
        if call is None or call.kind == "proposal":  # a proposer's turn coming back: his proposal lapses
            return True
        if call.kind == "emballage" and call.seats[0] == seat:
            return False  # the acceptor speaks for the team
        return call.key != self._top_key()

    def _holds(self, seat: int, suit: str | None) -> bool:
        return suit in self.suits_held[seat]

    def _first_turn(self, seat: int) -> bool:
        return seat not in self.spoken

    # ---------------------------------------------------------------- legal calls

    def _solo_suits(self, seat: int) -> list[str]:
        """The suits `seat` may play a solo in (couleur: D6; the club: once engaged, any suit)."""
        found = self._solo_cache.get(seat)
        if found is None:
            found = self._solo_cache[seat] = self._find_solo_suits(seat)
        return found

    def _find_solo_suits(self, seat: int) -> list[str]:
        if self.rules.solo_rule == "engaged":
            return list(SUITS) if seat in self.engaged else []
        suits = self.proposed[seat] - self.partnered[seat]
        if seat in self.speaker_passed:
            suits = suits | {self.speaker_passed[seat]}
        current = self.standing.get(seat)
        if current is not None and current.kind == "solo" and current.suit is not None:
            suits = suits | {current.suit}
        others = [other for other in SEATS if other != seat]
        if all(other in self.passed or other in self.bound for other in others):
            suits = set(SUITS)
        return [suit for suit in SUITS if suit in suits]

    def accept_levels(self, seat: int, suit: str) -> list[int]:
        """The emballage levels at which `seat` may accept an open proposal in `suit` (lowest = default)."""
        if seat in self.bound or not self._holds(seat, suit):
            return []
        if not any(call.kind == "proposal" and call.suit == suit and proposer != seat
                   for proposer, call in self.standing.items()):
            return []
        top = self._top_key(seat)
        return [level for level in self.rules.emballage_levels
                if self.rules.key("emballage", level, suit) >= top]

    def _candidates(self, seat: int) -> list[ParsedAction]:
        """Every call that could be legal now, in the order `legal_actions` lists them: trump (the
        bouche-trou), pass, renewal, raises, proposals, acceptances (default level first, written
        without its number), solos, abondances, then the words of [calls] in the data file's order."""
        accepts: list[ParsedAction] = []
        for suit in SUITS:
            levels = self.accept_levels(seat, suit)
            if levels:
                accepts.append(ParsedAction("accept", (suit, None), f"accept {suit}"))
                accepts += [ParsedAction("accept", (suit, level), f"accept {suit} {level}")
                            for level in levels[1:]]
        before, after = self.rules.candidate_calls
        return [*before, *accepts, *after]

    def _legal(self, seat: int) -> list[str]:
        if seat not in self.to_act():
            return []
        top = self._top(seat)
        return [action.text for action in self._candidates(seat) if self._refusal(seat, action, top) is None]

    # ---------------------------------------------------------------- the Auction protocol

    def to_act(self) -> frozenset[int]:
        """The one seat to speak, or nobody once the auction is over."""
        return frozenset() if self.done or self.turn is None else frozenset((self.turn,))

    def legal_actions(self, seat: int) -> list[str]:
        """Exactly the actions `seat` may take now (for `accept`: the default form and higher levels)."""
        if seat not in self._legal_cache:
            self._legal_cache[seat] = self._legal(seat)
        return list(self._legal_cache[seat])

    @property
    def finished(self) -> bool:
        """Whether the auction has closed."""
        return self.done

    def apply(self, seat: int, action: ParsedAction) -> list[Event]:
        """Apply a call; raises `IllegalAction` naming the rule, before changing anything."""
        reason = self._refusal(seat, action, self._top(seat))
        if reason is not None:
            raise IllegalAction(reason)
        self._legal_cache, self._solo_cache = {}, {}
        events: list[Event] = []
        verb, args = action.verb, action.args
        own = self.standing.get(seat)
        rules = self.rules
        answering_trou = seat == self.awaiting_answer
        if answering_trou:
            events += self._answer_trou(seat, action)
        elif verb == "pass":
            self._pass(seat)
        elif verb == rules.renewal_verb:
            assert own is not None and own.suit is not None
            self.renewed.add((seat, own.suit))
            self.engaged.add(seat)
        elif verb == "propose":
            suit = str(args[0])
            self.standing[seat] = rules.call("proposal", 8, suit, (seat,))
            self.proposed[seat].add(suit)
            self.engaged.add(seat)
        elif verb == "accept":
            suit = str(args[0])
            level = self.accept_levels(seat, suit)[0] if args[1] is None else int(str(args[1]))
            proposer = next(p for p, call in self.standing.items()
                            if call.kind == "proposal" and call.suit == suit)
            team = rules.call("emballage", level, suit, (proposer, seat))
            self.standing[proposer] = self.standing[seat] = team
            self.bound |= {proposer, seat}
            self.partnered[proposer].add(suit)
            self.engaged.add(seat)
            events.append({"type": "team", "proposer": proposer, "acceptor": seat, "suit": suit,
                           "level": level})
        elif verb == "raise":
            assert own is not None
            team = rules.call("emballage", int(str(args[0])), own.suit, own.seats)
            for member in own.seats:
                self.standing[member] = team
        else:
            if own is not None and self._speaks_for_team(seat):  # the club: the speaker goes alone
                self._leave_team(seat)
            self.standing[seat] = self._new_call(seat, action)
            if verb == "solo":
                self.bound.add(seat)
        self.spoken.add(seat)
        # After the bouche-trou's answer the two other players speak from eldest on (RULES.md §3).
        self._advance((self.eldest - 1) % 4 if answering_trou else seat, events)
        return events

    def _new_call(self, seat: int, action: ParsedAction) -> Call:
        """The call made by a solo, abondance, misère, piccolo or chelem action."""
        verb, args = action.verb, action.args
        if verb in ("solo", "abondance"):
            return self.rules.call(verb, int(str(args[0])), str(args[1]), (seat,))
        spec = self.rules.calls[verb]
        if spec["family"] == "chelem":
            suit = args[0] if isinstance(args[0], str) else None
            return self.rules.call(verb, spec["level"], suit, (seat,))
        return self.rules.call(verb, int(spec.get("level", 0)), None, (seat,))

    def _answer_trou(self, seat: int, action: ParsedAction) -> list[Event]:
        """The club's bouche-trou names trump (the trou stands) or refuses with a call above trou (D11)."""
        assert self.trou is not None
        holder = self.trou["seat"]
        self.awaiting_answer = None
        if action.verb == "trump":
            suit = str(action.args[0])
            self.trou["trump"] = suit
            trou = self.rules.call("trou", self.rules.trou_level, suit, (holder, seat))
            self.standing[holder] = self.standing[seat] = trou
            return [{"type": "trou_answer", "seat": seat, "trump": suit}]
        del self.standing[holder]
        self.standing[seat] = self._new_call(seat, action)
        self.trou["refused"] = True
        return [{"type": "trou_refused", "seat": seat, "call": self.standing[seat].rung}]

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
            if (self.rules.auto_pass_after_renewal and call is not None and call.kind == "proposal"
                    and call.suit is not None and (candidate, call.suit) in self.renewed
                    and candidate not in self.passed):
                self._pass(candidate)  # the club's maintien: still nobody accepts, he passes automatically
                events.append({"type": "auto_pass", "seat": candidate})
                continue
            if self._may_speak(candidate):
                self.turn = candidate
                return
        self.turn = None
        self.done = True

    def contract(self) -> Contract | None:
        """The contract of the highest standing call; None for a tour de passe."""
        top = self._top()
        if top is None or top.kind == "proposal":
            return None
        holders = tuple(self._holders())
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
        spec = self.rules.calls[top.kind]
        if spec["family"] == "chelem":
            return Contract(top.kind, top.kind, holders, top.level, top.suit, leader=holders[0], extra=extra)
        extra["exact"] = True  # a misère takes no trick, a piccolo exactly one
        return Contract(top.kind, top.kind, holders, top.level, None,
                        discard=bool(spec.get("discard", False)), expose=spec.get("expose"), extra=extra)

    def public_state(self) -> dict[str, Any]:
        """What every seat and spectator may know about the auction (never a hidden card)."""
        top = self._top()
        lapsed = self._lapsed(self.turn)
        teams = []
        seen: set[int] = set()
        for call in self.standing.values():
            if call.kind == "emballage" and id(call) not in seen:
                seen.add(id(call))
                teams.append({"proposer": call.seats[0], "acceptor": call.seats[1], "suit": call.suit,
                              "level": call.level})
        return {
            "highest": None if top is None else {**top.describe(), "holders": self._holders()},
            "standing": [[seat, self.standing[seat].describe()] for seat in sorted(self.standing)],
            "open_proposals": [[seat, call.suit] for seat, call in sorted(self.standing.items())
                               if call.kind == "proposal" and call is not self._lapsed(seat)],
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

    # ---------------------------------------------------------------- legality and its reasons

    def _refusal(self, seat: int, action: ParsedAction, top: Call | None) -> str | None:
        """None when `seat` may make `action` now, else the rule that forbids it, as a sentence.

        The one place that decides a call's legality: `legal_actions` lists the calls it lets through,
        `apply` refuses with the sentence it gives. `top` is `self._top(seat)`.
        """
        if seat == self.awaiting_answer:
            if action.verb == "trump":
                return None if action.args[0] in SUITS else \
                    "the bouche-trou names a suit as trump (S, H, D or C), not no trump"
            if action.verb in ("pass", "raise", self.rules.renewal_verb) or \
                    self._call_refusal(seat, action, top) is not None:
                return ("the bouche-trou answers the trou first: name trump with 'trump <suit>' or refuse by "
                        f"calling alone above trou (D11); {action.verb} is not such a call")
            return None
        if action.verb == "trump":
            return "trump is named in the call itself (or by the bouche-trou); there is no trump to name now"
        return self._call_refusal(seat, action, top)

    def _call_refusal(self, seat: int, action: ParsedAction, top: Call | None) -> str | None:
        """`_refusal` for every action but naming trump."""
        verb, args, rules = action.verb, action.args, self.rules
        spec = rules.calls.get(verb)
        family = spec["family"] if spec is not None else None
        if seat in self.bound:
            barred = "bound players (who accepted, were accepted or called a solo)"
            if family in ("misere", "piccolo"):
                return f"{barred} may no longer call a {'misère' if family == 'misere' else 'piccolo'}"
            if verb == "accept":
                return f"{barred} cannot accept a proposal"
            if verb == "propose":
                return f"{barred} cannot propose"
        speaks_for_team = self._speaks_for_team(seat)
        if speaks_for_team and verb not in ("pass", "raise"):
            speaker_may_solo = rules.speaker_solo_allowed(self.house_rules)
            if not (verb == "solo" and speaker_may_solo):
                alone = ", or go alone with a solo" if speaker_may_solo else ""
                return ("the acceptor speaks for the team: when it is outbid he may only raise it or "
                        f"pass{alone}")
        if verb == "pass":
            return None
        top_key = top.key if top is not None else (-1, -1)
        if verb == "raise":
            if not speaks_for_team:
                return "only the player who accepted a proposal speaks for the team and may raise it"
            team = self.standing[seat]
            level = int(str(args[0]))
            if level in rules.emballage_levels and rules.key("emballage", level, team.suit) > top_key:
                return None
            return f"a raise must bring the team's emballage above the current call ({self._current(top)})"
        if verb in ("renew", "maintain"):
            return self._renewal_refusal(seat, verb, top)
        if verb == "propose":
            suit = str(args[0])
            if not self._holds(seat, suit):
                return f"to propose {SUIT_NAMES[suit]} you must hold a card of {SUIT_NAMES[suit]}"
            if suit in self.proposed[seat]:
                return (f"you have proposed {SUIT_NAMES[suit]} already: a lapsed proposal is renewed "
                        f"({rules.renewal_verb!r}) once, or another suit is proposed")
            if rules.key("proposal", 8, suit) > top_key:
                return None
            return f"a proposal must rank above the current call ({self._current(top)})"
        if verb == "accept":
            return self._accept_refusal(seat, action, top)
        if verb == "solo":
            level, suit = int(str(args[0])), str(args[1])
            if level not in rules.solo_levels:
                return f"a solo is for {rules.solo_levels[0]} to {rules.solo_levels[-1]} tricks"
            if suit not in self._solo_suits(seat):
                if rules.solo_rule == "engaged":
                    return ("a solo is never a first call: you must have proposed, maintained or accepted "
                            "before")
                return ("a solo is allowed only in a suit you proposed without finding a partner, as the "
                        "partner of a team whose speaker passed, or when no other player can still accept "
                        "(D6)")
            return None if rules.key("solo", level, suit) > top_key else self._above(top)
        if verb == "abondance":
            level, suit = int(str(args[0])), str(args[1])
            if level not in rules.abondance_levels:
                return (f"an abondance is for {rules.abondance_levels[0]} to {rules.abondance_levels[-1]} "
                        "tricks")
            if not self._first_turn(seat):
                return "abondance only on your first turn to speak"
            return None if rules.key("abondance", level, suit) > top_key else self._above(top)
        if family == "chelem":
            first_turn_only = rules.call_option(verb, "first_turn_only", self.house_rules, False)
            if first_turn_only and not self._first_turn(seat):
                return f"{verb} only on your first turn to speak"
            if args[0] is None and not rules.call_option(verb, "no_trump", self.house_rules, False):
                return f"{verb} names a trump suit here: no 'NT' version in this room"
            chelem_suit = args[0] if isinstance(args[0], str) else None
            chelem_key = rules.key(verb, rules.calls[verb]["level"], chelem_suit)
            return None if chelem_key > top_key else self._above(top)
        if family in ("misere", "piccolo"):
            equal = family == "misere" and top is not None and top.kind == verb
            if rules.key(verb, 0, None) > top_key or equal:
                return None
            above = self._above(top)
            return f"{above}; only the same misère may equal it" if family == "misere" else above
        return f"{verb!r} is not a call you can make now ({self._current(top)})"

    def _renewal_refusal(self, seat: int, verb: str, top: Call | None) -> str | None:
        """Renewing (couleur) or maintaining (the club) one's lapsed proposal: once, while it still ranks
        above every other call."""
        rules = self.rules
        if verb != rules.renewal_verb:
            return f"no {verb!r} in these rules: a lapsed proposal is renewed with {rules.renewal_verb!r}"
        own = self.standing.get(seat)
        if own is None or own.kind != "proposal":
            return f"only a proposer whose proposal lapsed may {verb} it"
        if (seat, own.suit) in self.renewed:
            return f"a proposal may be {'renewed' if verb == 'renew' else 'maintained'} only once"
        if own.key > (top.key if top is not None else (-1, -1)):
            return None
        return f"a proposal may be renewed only while it is still the highest call ({self._current(top)})"

    def _accept_refusal(self, seat: int, action: ParsedAction, top: Call | None) -> str | None:
        """Accepting another player's open proposal, holding its suit, at a level that ranks high enough."""
        suit, level = str(action.args[0]), action.args[1]
        if not any(call.kind == "proposal" and call.suit == suit and p != seat
                   for p, call in self.standing.items()):
            return f"there is no open proposal in {SUIT_NAMES[suit]} by another player to accept"
        if not self._holds(seat, suit):
            return f"to accept {SUIT_NAMES[suit]} you must hold a card of {SUIT_NAMES[suit]}"
        levels = self.accept_levels(seat, suit)
        if not levels:
            return f"no emballage in {SUIT_NAMES[suit]} ranks above the current call ({self._current(top)})"
        if level is None or level in levels:
            return None
        return (f"accepting {SUIT_NAMES[suit]} must be at level {levels[0]} or higher, up to 13 "
                f"({self._current(top)})")

    @staticmethod
    def _current(top: Call | None) -> str:
        if top is None:
            return "no call has been made"
        return f"the current call is {top.rung}{' ' + SUIT_NAMES[top.suit] if top.suit else ''}"

    def _above(self, top: Call | None) -> str:
        return f"a call must rank above the current call ({self._current(top)})"
