"""Random playouts over every registered ruleset (hypothesis, seeded): the engine's invariants.

At every step of every deal: the 52 cards are conserved (hands + played + discards); no view of any
seat or of the spectator holds a card that viewer may not see, nor the seed; each view's legal actions
are the seat's; a sample of the other well-formed actions (all of them in one deal in EXHAUSTIVE_EVERY)
is rejected with IllegalAction and leaves the state unchanged (or, if it is another spelling of a legal
action, does exactly what that does); in those exhaustive deals every legal
action is also applied to a clone. At the end the ruleset's points invariant holds (zero-sum where
the ruleset is). Calls are chosen at random with `pass` weighted heavily so that rare contracts are
reached; how often each contract was played is printed (-s) and recorded as a test property.

WHIST_PLAYOUTS sets the number of deals per ruleset (default 1000 for solo-whist, 600 for the others).
"""

from __future__ import annotations

import itertools
import json
import os
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st
from rules_helpers import may_see

from server.rules import FULL_DECK, Deal, IllegalAction, Phase, get_ruleset, ruleset_names
from server.rules.actions import Arg
from server.rules.ruleset import Ruleset

#: Deals per ruleset (about 2,200 in all, some 40 s on one core); WHIST_PLAYOUTS overrides them all.
DEFAULT_PLAYOUTS = {"solo-whist": 1000}
OTHER_RULESETS_PLAYOUTS = 600
EXHAUSTIVE_EVERY = 40  # one deal in this many checks every action at every step
ILLEGAL_SAMPLE = 4  # otherwise, how many wrong actions are tried at each step
PASS_WEIGHT = 0.6  # chance of passing whenever passing is legal in the auction

_ALL_CARDS = frozenset(FULL_DECK)
_SEPARATORS = str.maketrans('[]{}",:', "       ")
_ARG_VALUES: dict[Arg, list[str]] = {
    Arg.CARD: list(FULL_DECK),
    Arg.SUIT: ["S", "H", "D", "C"],
    Arg.SUIT_OR_NT: ["S", "H", "D", "C", "NT"],
    Arg.LEVEL: [str(level) for level in range(1, 14)],
    Arg.OPTIONAL_LEVEL: ["", *(str(level) for level in range(1, 14))],
}


def action_grid(ruleset: Ruleset) -> list[str]:
    """Every well-formed action of the ruleset's vocabulary."""
    grid: list[str] = []
    for verb, kinds in sorted(ruleset.vocabulary.items()):
        for values in itertools.product(*(_ARG_VALUES[kind] for kind in kinds)):
            grid.append(" ".join([verb, *(v for v in values if v)]))
    return grid


def fingerprint(deal: Deal) -> Any:
    """A cheap summary of everything an action could change."""
    return (
        tuple(deal.log), deal.phase, deal.contract, tuple(frozenset(h) for h in deal.hands),
        tuple(deal.trick.cards) if deal.trick else None, tuple(deal.tricks_won), len(deal.tricks),
        tuple(sorted(deal.discards.items())), tuple(deal.exposed), tuple(deal.points or ()),
        json.dumps(deal.auction.public_state(), sort_keys=True, default=str), deal.to_act(),
    )


def check_views(deal: Deal) -> None:
    for seat in (0, 1, 2, 3, None):
        view = deal.view(seat)
        text = json.dumps(view)
        leaked = _ALL_CARDS.intersection(text.translate(_SEPARATORS).split()) - may_see(deal, seat)
        for announcement in deal.announcements:  # a card named in a public announcement is public
            leaked -= _ALL_CARDS.intersection(json.dumps(announcement).translate(_SEPARATORS).split())
        assert not leaked, f"view of {seat} shows {sorted(leaked)}"
        if not deal.finished:
            assert "seed" not in view and (deal.seed or "") not in text
            assert "dealt" not in view
        if seat is not None:
            assert view["legal"] == (deal.legal_actions(seat) if not deal.finished else [])
            assert view["hand"] is not None and sorted(view["hand"]) == sorted(deal.hands[seat])


def check_cards(deal: Deal) -> None:
    cards = [card for hand in deal.hands for card in hand]
    cards += [card for trick in deal.tricks for _, card in trick.cards]
    cards += [card for _, card in deal.trick.cards] if deal.trick is not None else []
    cards += list(deal.discards.values())
    assert len(cards) == 52 and set(cards) == _ALL_CARDS


def rejected(deal: Deal, seat: int, action: str, before: Any) -> bool:
    """Whether `action` is rejected with IllegalAction, leaving the state as `before` says."""
    try:
        deal.apply(seat, action)
    except IllegalAction:
        assert fingerprint(deal) == before, f"{seat} {action!r} changed the state"
        return True
    return False


def same_as_a_legal_action(backup: Deal, seat: int, action: str) -> None:
    """An action applied though it is not listed as legal must be another spelling of a legal one
    (such as an optional level written out) and do exactly what that one does."""
    twin = backup.clone()
    twin.apply(seat, action)
    after = fingerprint(twin)[1:]  # the log keeps the spelling used
    for legal in backup.legal_actions(seat):
        other = backup.clone()
        other.apply(seat, legal)
        if fingerprint(other)[1:] == after:
            return
    raise AssertionError(f"seat {seat} could apply {action!r}, which is not among its legal actions")


def check_wrong_actions(deal: Deal, tries: list[tuple[int, str]]) -> Deal:
    """Try each (seat, action) of `tries`, none of them listed as legal; returns the deal to go on with."""
    before = fingerprint(deal)
    backup = deal.clone()
    for seat, action in tries:
        if not rejected(deal, seat, action, before):
            same_as_a_legal_action(backup, seat, action)
            deal, backup = backup, backup.clone()
    return deal


def choose(rng: random.Random, deal: Deal, seat: int, legal: list[str]) -> str:
    if deal.phase is Phase.AUCTION and "pass" in legal and (len(legal) == 1 or rng.random() < PASS_WEIGHT):
        return "pass"
    if deal.phase is not Phase.AUCTION:
        return rng.choice(legal)
    calls = [action for action in legal if action != "pass"]
    # Half the time the lowest call, so that low partnerships (prop and cop) happen as often as slams.
    return calls[0] if rng.random() < 0.5 else rng.choice(calls)


def random_house_rules(rng: random.Random, ruleset: Ruleset) -> dict[str, Any]:
    rules: dict[str, Any] = {}
    for rule in ruleset.house_rules.values():
        if rule.choices:
            rules[rule.name] = rng.choice(rule.choices)
        elif isinstance(rule.default, bool):
            rules[rule.name] = rng.random() < 0.5
        elif isinstance(rule.default, int):
            rules[rule.name] = rng.choice([rule.default, rule.default + 1])
    return rules


def play_one(name: str, seed: int, rng: random.Random, exhaustive: bool, grid: list[str]) -> Deal:
    ruleset = get_ruleset(name)
    try:
        house_rules = random_house_rules(rng, ruleset)
        multiplier = rng.choice([1, 1, 2])
        deal = Deal.from_seed(name, f"property-{seed}", seed % 4, house_rules, multiplier=multiplier)
    except Exception:  # a combination a ruleset refuses (e.g. a table it validates): use its defaults
        house_rules = {}
        deal = Deal.from_seed(name, f"property-{seed}", seed % 4, {}, multiplier=rng.choice([1, 1, 2]))
    for _ in range(400):
        check_cards(deal)
        check_views(deal)
        if deal.finished:
            break
        acting = sorted(deal.to_act())
        assert acting, "a deal that is not over must have someone to act"
        legal = {seat: deal.legal_actions(seat) for seat in acting}
        assert all(legal.values()), f"a seat to act has no legal action: {legal}"
        idle = [seat for seat in range(4) if seat not in acting]
        for seat in idle:
            assert deal.legal_actions(seat) == []
        seat = rng.choice(acting)
        tries: list[tuple[int, str]] = []
        if exhaustive:
            for other in acting:
                for action in legal[other]:
                    assert isinstance(deal.clone().apply(other, action), list)
                tries += [(other, action) for action in grid if action not in legal[other]]
            if idle:
                tries += [(rng.choice(idle), action) for action in grid[:: max(1, len(grid) // 40)]]
        else:
            wrong = [a for a in rng.sample(grid, ILLEGAL_SAMPLE * 2) if a not in legal[seat]][:ILLEGAL_SAMPLE]
            tries += [(seat, action) for action in wrong]
            if idle:
                tries.append((rng.choice(idle), rng.choice(legal[seat])))
        deal = check_wrong_actions(deal, tries)
        action = choose(rng, deal, seat, legal[seat])
        events = deal.apply(seat, action)
        assert isinstance(events, list) and json.loads(json.dumps(events)) == events
    assert deal.finished, "a deal must end"
    problem = deal.ruleset.points_problem(deal)
    assert problem is None, problem
    result = deal.result()
    assert sum(result["tricks"]) == result["tricks_played"] == len(deal.tricks)
    if result["status"] == "thrown_in":
        assert result["points"] == [0, 0, 0, 0] and result["declarers"] == []
    return deal


@pytest.mark.parametrize("name", ruleset_names())
def test_random_playouts(name: str, record_property: Any) -> None:
    playouts = int(os.environ.get("WHIST_PLAYOUTS", DEFAULT_PLAYOUTS.get(name, OTHER_RULESETS_PLAYOUTS)))
    counts: Counter[str] = Counter()
    grid = action_grid(get_ruleset(name))

    # No shrinking: a random playout does not get simpler by shrinking, and the seed is reported.
    @settings(max_examples=playouts, derandomize=True, deadline=None, database=None,
              phases=[Stage.explicit, Stage.generate], suppress_health_check=[HealthCheck.too_slow])
    # Hypothesis draws the deal's seed and the seed of the choices; a plain Random then makes the
    # hundreds of choices of a deal (drawing each from hypothesis would cost more than the deal).
    # Which deals are exhaustive is drawn from that Random too: hypothesis favours boundary values.
    @given(seed=st.integers(min_value=0, max_value=2**32), choices=st.integers(min_value=0, max_value=2**32))
    def playout(seed: int, choices: int) -> None:
        rng = random.Random(choices)
        exhaustive = rng.randrange(EXHAUSTIVE_EVERY) == 0
        deal = play_one(name, seed, rng, exhaustive, grid)
        counts[deal.result()["contract"] or "thrown_in"] += 1

    playout()
    summary = ", ".join(f"{contract}: {count}" for contract, count in counts.most_common())
    print(f"\n{name}: {sum(counts.values())} deals; {summary}")
    record_property(f"{name}_contracts", dict(counts))
    assert sum(counts.values()) >= min(playouts, 100)
    if name == "solo-whist":
        ladder = {spec.name for spec in get_ruleset(name).calls}  # type: ignore[attr-defined]
        assert ladder | {"thrown_in"} <= set(counts), f"contracts never reached: {ladder - set(counts)}"
