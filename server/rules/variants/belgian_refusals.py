"""Why a Belgian call is refused: one rule per function, looked up by verb or by the family of a call.

`refusal` is the one place that decides a call's legality: `legal_actions` lists the calls it lets
through, `apply` refuses with the sentence it gives. Two gates come first for every call (bound
players, a team's speaker); then the verb's own rule: `VERB_RULES` for the verbs common to both
rulesets, the seed's renewal verb (`renew`, `maintain`), and `FAMILY_RULES` for the words of the seed's
[calls] table. Each rule returns None to allow the call, else the rule that forbids it, as a sentence.
"""

from __future__ import annotations

from collections.abc import Callable

from ..actions import ParsedAction
from ..cards import SUIT_NAMES, SUITS
from .belgian_data import AuctionData, Call
from .belgian_state import NO_KEY, AuctionState

#: A rule: (state, seat, action, the top call for that seat) -> None, or why the call is refused.
Rule = Callable[[AuctionState, int, ParsedAction, "Call | None"], "str | None"]
#: A gate, asked before the verb's rule: (state, seat, action) -> None, or why the call is refused.
Gate = Callable[[AuctionState, int, ParsedAction], "str | None"]

BOUND = "bound players (who accepted, were accepted or called a solo)"

#: What a bound player may no longer do, by verb or by the family of a [calls] word.
BOUND_BARS = {
    "accept": "cannot accept a proposal",
    "propose": "cannot propose",
    "misere": "may no longer call a misère",
    "piccolo": "may no longer call a piccolo",
}

#: Why a solo is refused in a suit `solo_suits` does not give, by the seed's `solo_rule`.
SOLO_SUIT_REFUSALS = {
    "engaged": "a solo is never a first call: you must have proposed, maintained or accepted before",
    "partnerless": ("a solo is allowed only in a suit you proposed without finding a partner, as the "
                    "partner of a team whose speaker passed, or when no other player can still accept (D6)"),
}


def refusal(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """None when `seat` may make `action` now, else the rule that forbids it. `top` is `state.top(seat)`."""
    if seat == state.awaiting_answer:
        return _trou_answer(state, seat, action, top)
    if action.verb == "trump":
        return "trump is named in the call itself (or by the bouche-trou); there is no trump to name now"
    return call_refusal(state, seat, action, top)


def call_refusal(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """`refusal` for every action but naming trump: the gates, then the verb's own rule."""
    for gate in GATES:
        reason = gate(state, seat, action)
        if reason is not None:
            return reason
    return rule_for(state, action.verb)(state, seat, action, top)


def rule_for(state: AuctionState, verb: str) -> Rule:
    """The rule that decides `verb`: the renewal verb's, a [calls] family's, or a common verb's."""
    table = _TABLES.get(state.data)
    if table is None:
        table = _TABLES[state.data] = _rule_table(state.data)
    return table.get(verb, _unknown)


def _rule_table(data: AuctionData) -> dict[str, Rule]:
    """Each verb of one ruleset with its rule, looked up once (legality is asked for every candidate)."""
    table = {**VERB_RULES, data.renewal_verb: _renewal}
    table.update({word: FAMILY_RULES[str(spec["family"])] for word, spec in data.calls.items()})
    return table


# ---------------------------------------------------------------- the trou's answer (the club, D11)


def _trou_answer(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """The bouche-trou names a suit as trump, or refuses the trou by calling alone above it."""
    if action.verb == "trump":
        return None if action.args[0] in SUITS else \
            "the bouche-trou names a suit as trump (S, H, D or C), not no trump"
    if action.verb in ("pass", "raise", state.data.renewal_verb) or \
            call_refusal(state, seat, action, top) is not None:
        return ("the bouche-trou answers the trou first: name trump with 'trump <suit>' or refuse by "
                f"calling alone above trou (D11); {action.verb} is not such a call")
    return None


# ---------------------------------------------------------------- gates


def _bound_player(state: AuctionState, seat: int, action: ParsedAction) -> str | None:
    """Bound players may not propose, accept, or call a misère or piccolo."""
    if seat not in state.bound:
        return None
    bar = BOUND_BARS.get(state.data.family(action.verb) or action.verb)
    return None if bar is None else f"{BOUND} {bar}"


def _team_speaker(state: AuctionState, seat: int, action: ParsedAction) -> str | None:
    """The acceptor speaks for the team: outbid, he raises or passes (or, where allowed, goes alone)."""
    if action.verb in ("pass", "raise") or not state.speaks_for_team(seat):
        return None
    speaker_may_solo = state.data.speaker_solo_allowed(state.house_rules)
    if action.verb == "solo" and speaker_may_solo:
        return None
    alone = ", or go alone with a solo" if speaker_may_solo else ""
    return f"the acceptor speaks for the team: when it is outbid he may only raise it or pass{alone}"


GATES: tuple[Gate, ...] = (_bound_player, _team_speaker)


# ---------------------------------------------------------------- the common verbs


def _pass(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """Anybody to speak may pass."""
    return None


def _raise(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """The team's speaker raises the team's emballage to a level above the current call."""
    if not state.speaks_for_team(seat):
        return "only the player who accepted a proposal speaks for the team and may raise it"
    data, team, level = state.data, state.standing[seat], int(str(action.args[0]))
    if level in data.emballage_levels and data.key("emballage", level, team.suit) > _key(top):
        return None
    return f"a raise must bring the team's emballage above the current call ({_current(top)})"


def _propose(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """A proposal names a suit the seat holds, not proposed before, ranking above the current call."""
    data, suit = state.data, str(action.args[0])
    if not state.holds(seat, suit):
        return f"to propose {SUIT_NAMES[suit]} you must hold a card of {SUIT_NAMES[suit]}"
    if suit in state.proposed[seat]:
        return (f"you have proposed {SUIT_NAMES[suit]} already: a lapsed proposal is renewed "
                f"({data.renewal_verb!r}) once, or another suit is proposed")
    if data.key("proposal", data.proposal_level, suit) > _key(top):
        return None
    return f"a proposal must rank above the current call ({_current(top)})"


def _accept(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """Accepting another player's open proposal, holding its suit, at a level that ranks high enough."""
    suit, level = str(action.args[0]), action.args[1]
    if state.open_proposal(suit, seat) is None:
        return f"there is no open proposal in {SUIT_NAMES[suit]} by another player to accept"
    if not state.holds(seat, suit):
        return f"to accept {SUIT_NAMES[suit]} you must hold a card of {SUIT_NAMES[suit]}"
    levels = state.accept_levels(seat, suit)
    if not levels:
        return f"no emballage in {SUIT_NAMES[suit]} ranks above the current call ({_current(top)})"
    if level is None or level in levels:
        return None
    return (f"accepting {SUIT_NAMES[suit]} must be at level {levels[0]} or higher, up to 13 "
            f"({_current(top)})")


def _solo(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """A solo at one of the seed's levels, in a suit the ruleset's `solo_rule` allows, above the top."""
    data, level, suit = state.data, int(str(action.args[0])), str(action.args[1])
    if level not in data.solo_levels:
        return f"a solo is for {data.solo_levels[0]} to {data.solo_levels[-1]} tricks"
    if suit not in state.solo_suits(seat):
        return SOLO_SUIT_REFUSALS[data.solo_rule]
    return None if data.key("solo", level, suit) > _key(top) else _above(top)


def _abondance(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """An abondance at one of the seed's levels, on the seat's first turn, above the top."""
    data, level, suit = state.data, int(str(action.args[0])), str(action.args[1])
    levels = data.abondance_levels
    if level not in levels:
        return f"an abondance is for {levels[0]} to {levels[-1]} tricks"
    if not state.first_turn(seat):
        return "abondance only on your first turn to speak"
    return None if data.key("abondance", level, suit) > _key(top) else _above(top)


def _renewal(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """Renewing (couleur) or maintaining (the club) one's lapsed proposal: once, while it still ranks
    above every other call."""
    verb, own = action.verb, state.standing.get(seat)
    if own is None or own.kind != "proposal":
        return f"only a proposer whose proposal lapsed may {verb} it"
    if (seat, own.suit) in state.renewed:
        return f"a proposal may be {state.data.renewal_done} only once"
    if own.key > _key(top):
        return None
    return f"a proposal may be renewed only while it is still the highest call ({_current(top)})"


def _unknown(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    return f"{action.verb!r} is not a call you can make now ({_current(top)})"


VERB_RULES: dict[str, Rule] = {
    "pass": _pass, "raise": _raise, "propose": _propose, "accept": _accept, "solo": _solo,
    "abondance": _abondance,
}


# ---------------------------------------------------------------- the families of [calls]


def _chelem(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """A chelem: on the first turn where the seed says so, with no trump where it allows, above the top."""
    data, verb, house_rules = state.data, action.verb, state.house_rules
    if data.call_option(verb, "first_turn_only", house_rules, False) and not state.first_turn(seat):
        return f"{verb} only on your first turn to speak"
    suit = action.args[0] if isinstance(action.args[0], str) else None
    if suit is None and not data.call_option(verb, "no_trump", house_rules, False):
        return f"{verb} names a trump suit here: no 'NT' version in this room"
    return None if data.key(verb, data.calls[verb]["level"], suit) > _key(top) else _above(top)


def _misere(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """A misère ranks above the top call, or equals the same misère."""
    equal = top is not None and top.kind == action.verb
    if state.data.key(action.verb, 0, None) > _key(top) or equal:
        return None
    return f"{_above(top)}; only the same misère may equal it"


def _piccolo(state: AuctionState, seat: int, action: ParsedAction, top: Call | None) -> str | None:
    """A piccolo ranks above the top call (nobody equals it)."""
    return None if state.data.key(action.verb, 0, None) > _key(top) else _above(top)


FAMILY_RULES: dict[str, Rule] = {"chelem": _chelem, "misere": _misere, "piccolo": _piccolo}

#: Each ruleset's verbs with their rules (see `rule_for`), built the first time the ruleset is asked.
_TABLES: dict[AuctionData, dict[str, Rule]] = {}


# ---------------------------------------------------------------- sentences


def _key(top: Call | None) -> tuple[int, int]:
    return top.key if top is not None else NO_KEY


def _current(top: Call | None) -> str:
    if top is None:
        return "no call has been made"
    return f"the current call is {top.rung}{' ' + SUIT_NAMES[top.suit] if top.suit else ''}"


def _above(top: Call | None) -> str:
    return f"a call must rank above the current call ({_current(top)})"
