"""Helpers for the tests of the two Belgian rulesets (`couleur`, `belge-club`).

`ROUND` deals the ordered deck round the table: every seat holds every suit and exactly one ace
(seat 0 the ace of spades, 1 hearts, 2 diamonds, 3 clubs), so no trou. `swap` moves cards between
hands to build the hands a test needs. Dealer 3 by default: seat 0 is eldest, speech goes 0 1 2 3.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from server.rules import FULL_DECK, Deal
from server.rules.record import deal_from_record

ROUND: list[list[str]] = [[FULL_DECK[i] for i in range(52) if i % 4 == seat] for seat in range(4)]


def swap(*pairs: tuple[str, str], base: Sequence[Sequence[str]] = ROUND) -> list[list[str]]:
    """`base` with each pair of cards exchanged between their holders."""
    hands = [list(hand) for hand in base]
    for first, second in pairs:
        a = next(seat for seat in range(4) if first in hands[seat])
        b = next(seat for seat in range(4) if second in hands[seat])
        hands[a][hands[a].index(first)] = second
        hands[b][hands[b].index(second)] = first
    return hands


def holder(hands: Sequence[Sequence[str]], card: str) -> int:
    """The seat dealt `card`."""
    return next(seat for seat in range(4) if card in hands[seat])


def make_deal(
    ruleset: str,
    calls: Sequence[tuple[int, str]] = (),
    hands: Sequence[Sequence[str]] | None = None,
    dealer: int = 3,
    house_rules: dict[str, Any] | None = None,
    turn_up: str | None = None,
    multiplier: int = 1,
) -> Deal:
    """A deal of `ruleset` from `hands` (ROUND by default) with `calls` applied in order."""
    hands = [list(hand) for hand in (hands or ROUND)]
    if ruleset == "belge-club" and turn_up is None:
        turn_up = hands[dealer][-1]
    deal = Deal(ruleset, hands, dealer, turn_up, house_rules or {}, multiplier=multiplier)
    for seat, action in calls:
        deal.apply(seat, action)
    return deal


def couleur(calls: Sequence[tuple[int, str]] = (), **kwargs: Any) -> Deal:
    """A `couleur` deal with `calls` applied."""
    return make_deal("couleur", calls, **kwargs)


def club(calls: Sequence[tuple[int, str]] = (), **kwargs: Any) -> Deal:
    """A `belge-club` deal with `calls` applied."""
    return make_deal("belge-club", calls, **kwargs)


def passes(*seats: int) -> list[tuple[int, str]]:
    """A pass for each seat, in order."""
    return [(seat, "pass") for seat in seats]


# ---------------------------------------------------------------- full deals replayed from records

RECORDS = Path(__file__).parent / "records"
REPO = Path(__file__).resolve().parents[2]


def expected(
    contract: str | None,
    declarers: list[int],
    trump: str | None,
    tricks: list[int],
    points: list[int],
    played: int,
    status: str = "complete",
) -> dict[str, Any]:
    """A replay result, in the shape `python -m server.rules replay` prints."""
    return {
        "status": status,
        "contract": contract,
        "declarers": declarers,
        "trump": trump,
        "tricks": tricks,
        "points": points,
        "tricks_played": played,
    }


THROWN_IN = expected(None, [], None, [0, 0, 0, 0], [0, 0, 0, 0], 0, "thrown_in")


def load_record(ruleset: str, name: str) -> dict[str, Any]:
    """A record of tests/rules/records/<ruleset>/."""
    data: dict[str, Any] = json.loads((RECORDS / ruleset / f"{name}.json").read_text())
    return data


def reference_winner(cards: Sequence[Sequence[Any]], trump: str | None) -> int:
    """Highest trump, else highest card of the suit led: written apart from the engine."""
    order = "23456789TJQKA"
    led = cards[0][1][1]

    def strength(card: str) -> int:
        return (200 if card[1] == trump else 100 if card[1] == led else 0) + order.index(card[0])

    return int(max(cards, key=lambda pair: strength(pair[1]))[0])


def hidden_cards_leaked(deal: Deal, seat: int | None) -> list[str]:
    """Cards of other seats (not face up, not the turn-up) that appear anywhere in `seat`'s view."""
    if deal.finished:
        return []
    text = json.dumps(deal.view(seat))
    leaked = []
    for other in range(4):
        if other == seat or other in deal.exposed:
            continue
        secret = set(deal.hands[other]) | ({deal.discards[other]} if other in deal.discards else set())
        leaked += [card for card in secret if card != deal.turn_up and f'"{card}"' in text]
    return leaked


def replay_step_by_step(record: dict[str, Any]) -> Deal:
    """Apply each action, checking it was listed as legal, views leak nothing and tricks go right."""
    deal, actions = deal_from_record(record)
    for seat, action in actions:
        assert seat in deal.to_act(), (seat, action)
        legal = deal.legal_actions(seat)
        assert action in legal or action.startswith("accept"), (action, legal)
        deal.apply(seat, action)
        for viewer in (0, 1, 2, 3, None):
            assert hidden_cards_leaked(deal, viewer) == [], (viewer, action)
        assert (
            sum(len(hand) for hand in deal.hands)
            + sum(len(t.cards) for t in deal.tricks)
            + (len(deal.trick.cards) if deal.trick else 0)
            + len(deal.discards)
            == 52
        )
    for trick in deal.tricks:
        assert deal.contract is not None
        assert trick.winner == reference_winner(trick.as_dict()["cards"], deal.contract.trump)
    return deal


def run_replay_cli(ruleset: str, name: str) -> tuple[int, dict[str, Any]]:
    """`python -m server.rules replay FILE` in a subprocess: exit status and printed JSON."""
    path = RECORDS / ruleset / f"{name}.json"
    done = subprocess.run(
        [sys.executable, "-m", "server.rules", "replay", str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)
