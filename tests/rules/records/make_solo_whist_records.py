"""Write the Solo Whist deal records of tests/rules/records/solo-whist/ (a development tool).

Each scenario picks, among seeded deals, one whose hands suit the contract called (a misère caller
with low cards, an abundance caller with a long suit), scripts the auction, and plays the cards with a
plain club-player policy: win the trick cheaply when it helps your side, otherwise play low; a misère
declarer ducks as high as it safely can. The records are then checked by hand (the tricks are printed)
and their expected results written into tests/rules/test_solo_whist_records.py; this script is not
used by the tests.

Run: .venv/bin/python tests/rules/records/make_solo_whist_records.py [--print]
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server.rules import Deal
from server.rules.cards import rank_of, suit_of

OUT = Path(__file__).parent / "solo-whist"

HandTest = Callable[[list[str], str], bool]


def _suit_cards(hand: list[str], suit: str) -> list[str]:
    return [card for card in hand if suit_of(card) == suit]


def _winner(cards: list[tuple[int, str]], trump: str | None) -> int:
    best_seat, best = cards[0]
    for seat, card in cards[1:]:
        if (suit_of(card) == suit_of(best) and rank_of(card) > rank_of(best)) or (
            suit_of(card) == trump and suit_of(best) != trump
        ):
            best_seat, best = seat, card
    return best_seat


def choose_card(deal: Deal, seat: int) -> str:
    """A plain policy: sides try to win tricks they want, misère players duck."""
    assert deal.contract is not None and deal.trick is not None
    contract = deal.contract
    legal = sorted((a.split()[1] for a in deal.legal_actions(seat)), key=rank_of)
    misere = contract.level == 0
    declarer_side = seat in contract.declarers
    cards = list(deal.trick.cards)
    trump = contract.trump
    if misere and declarer_side:
        # Duck: the highest card that does not win, else the lowest.
        if not cards:
            return legal[0]
        losing = [c for c in legal if _winner([*cards, (seat, c)], trump) != seat]
        return losing[-1] if losing else legal[-1]
    if misere:
        # Defenders of a misère lead and play low, hoping the declarer must win.
        return legal[0]
    if not cards:
        return legal[-1]  # lead the highest card
    winning = [c for c in legal if _winner([*cards, (seat, c)], trump) == seat]
    current = _winner(cards, trump)
    partner_winning = (current in contract.declarers) == declarer_side
    if partner_winning or not winning:
        return legal[0]
    return min(winning, key=lambda c: (suit_of(c) == trump, rank_of(c)))


def find_seed(prefix: str, dealer: int, seat: int, test: HandTest, rules: dict[str, Any]) -> Deal:
    for number in range(20000):
        deal = Deal.from_seed("solo-whist", f"{prefix}-{number}", dealer, rules)
        hand = list(deal.hands[seat])
        if test(hand, deal.turn_up[1] if deal.turn_up else ""):
            return deal
    raise SystemExit(f"no seed for {prefix}")


def play_out(deal: Deal, auction: list[tuple[int, str]]) -> Deal:
    for seat, action in auction:
        deal.apply(seat, action)
    while not deal.finished:
        seat = next(iter(deal.to_act()))
        deal.apply(seat, f"play {choose_card(deal, seat)}")
    return deal


def long_suit(length: int, honours: int) -> HandTest:
    def test(hand: list[str], turn_up_suit: str) -> bool:
        for suit in "SHDC":
            cards = sorted((rank_of(c) for c in _suit_cards(hand, suit)), reverse=True)
            if (
                suit != turn_up_suit
                and len(cards) >= length
                and cards[:honours] == list(range(14, 14 - honours, -1))
            ):
                return True
        return False

    return test


def turn_up_length(length: int, honours: int) -> HandTest:
    def test(hand: list[str], turn_up_suit: str) -> bool:
        cards = sorted((rank_of(c) for c in _suit_cards(hand, turn_up_suit)), reverse=True)
        return len(cards) >= length and cards[:honours] == list(range(14, 14 - honours, -1))

    return test


def low_hand(max_rank: int) -> HandTest:
    return lambda hand, _: max(rank_of(c) for c in hand) <= max_rank


def scenarios() -> dict[str, Deal]:
    out: dict[str, Deal] = {}
    # Prop and Cop: the proposer holds four trumps with the ace and king.
    deal = find_seed("pc", 3, 0, turn_up_length(4, 2), {})
    out["prop_cop"] = play_out(deal, [(0, "prop"), (1, "pass"), (2, "cop"), (3, "pass")])
    # Solo with a thin hand: fails.
    deal = find_seed("solo", 0, 2, turn_up_length(3, 1), {})
    out["solo"] = play_out(deal, [(1, "pass"), (2, "solo"), (3, "pass"), (0, "pass")])
    # Misère with middling cards: broken early (D5).
    deal = find_seed("mis", 1, 3, low_hand(12), {})
    out["misere_broken"] = play_out(deal, [(2, "pass"), (3, "misere"), (0, "pass"), (1, "pass")])
    # Spread misère with a very low hand: made, all 13 tricks.
    deal = find_seed("spread", 2, 3, low_hand(9), {})
    out["spread_misere"] = play_out(deal, [(3, "spread-misere"), (0, "pass"), (1, "pass"), (2, "pass")])
    # Abundance: trump named after the auction (D3), not the turn-up suit.
    deal = find_seed("abund", 0, 1, long_suit(7, 3), {})
    hand = list(deal.hands[1])
    suit = next(
        s for s in "SHDC" if s != deal.turn_up[1] and long_suit(7, 3)([c for c in hand if c[1] == s], "")
    )
    out["abundance"] = play_out(
        deal,
        [
            (1, "prop"),
            (2, "solo"),
            (3, "pass"),
            (0, "pass"),
            (1, "abundance"),
            (2, "pass"),
            (1, f"trump {suit}"),
        ],
    )
    # Royal abundance with overtricks: every trick is played.
    deal = find_seed("royal", 1, 2, turn_up_length(7, 3), {"overtricks": True})
    out["royal_abundance_overtricks"] = play_out(
        deal, [(2, "royal-abundance"), (3, "pass"), (0, "pass"), (1, "pass")]
    )
    # Abundance declared by a seat that is not eldest: the declarer leads, loses a trick, play stops.
    deal = find_seed("ad", 3, 2, long_suit(8, 4), {})
    hand = list(deal.hands[2])
    suit = max("SHDC", key=lambda s: len(_suit_cards(hand, s)))
    out["abundance_declared"] = play_out(
        deal,
        [(0, "pass"), (1, "solo"), (2, "abundance-declared"), (3, "pass"), (1, "pass"), (2, f"trump {suit}")],
    )
    # All four pass: thrown in.
    deal = Deal.from_seed("solo-whist", "pass-0", 0, {})
    out["all_pass"] = play_out(deal, [(1, "pass"), (2, "pass"), (3, "pass"), (0, "pass")])
    # Prop without Cop: thrown in (D4 off).
    deal = Deal.from_seed("solo-whist", "lone-0", 1, {})
    out["prop_uncopped"] = play_out(deal, [(2, "pass"), (3, "prop"), (0, "pass"), (1, "pass")])
    # D4 on: the lone proposer raises to solo.
    deal = find_seed("d4", 2, 3, turn_up_length(5, 2), {"prop_may_upgrade": True})
    out["d4_upgrade_to_solo"] = play_out(
        deal, [(3, "prop"), (0, "pass"), (1, "pass"), (2, "pass"), (3, "solo")]
    )
    # D2 on: eldest passes, then cops the prop nobody else copped; traditional stakes, multiplier 2.
    deal = find_seed(
        "d2",
        0,
        1,
        turn_up_length(3, 1),
        {"eldest_may_cop_after_pass": True, "stakes_table": "traditional", "stake_multiplier": 2},
    )
    out["d2_eldest_cops_after_pass"] = play_out(
        deal, [(1, "pass"), (2, "prop"), (3, "pass"), (0, "pass"), (1, "cop")]
    )
    # No turn-up, no Prop and Cop: the soloist names trump.
    deal = find_seed("nt", 1, 2, long_suit(5, 2), {"turn_up": False, "prop_and_cop": False})
    hand = list(deal.hands[2])
    suit = max("SHDC", key=lambda s: len(_suit_cards(hand, s)))
    out["no_turn_up_solo"] = play_out(
        deal, [(2, "solo"), (3, "pass"), (0, "pass"), (1, "pass"), (2, f"trump {suit}")]
    )
    return out


def format_record(record: dict[str, Any]) -> str:
    """JSON with one action per line, easy to read and to check by hand."""
    head = {key: value for key, value in record.items() if key != "actions"}
    lines = json.dumps(head, indent=2)[:-2] + ',\n  "actions": [\n'
    lines += ",\n".join(f"    {json.dumps(action)}" for action in record["actions"])
    return lines + "\n  ]\n}\n"


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, deal in scenarios().items():
        record = deal.to_record()
        (OUT / f"{name}.json").write_text(format_record(record))
        if "--print" in sys.argv:
            print(name, record["dealer"], record.get("turn_up"), record["house_rules"])
            for seat, hand in enumerate(record["hands"]):
                print("  ", seat, hand)
            print("   calls", deal.calls)
            for trick in deal.tricks:
                print("   ", trick.leader, " ".join(f"{s}:{c}" for s, c in trick.cards), "->", trick.winner)
            print("   ", deal.result())


if __name__ == "__main__":
    main()
