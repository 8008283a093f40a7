"""Write the deal records of tests/rules/records/couleur/ and tests/rules/records/belge-club/ (a tool).

Each scenario scripts an auction on a seeded deal (the first seed whose hands make every scripted call
legal and satisfy the scenario's condition) or on built hands (trou, misères), then plays the cards with
a plain club-player policy: win the trick cheaply when your side wants tricks, otherwise play low; a misère
declarer ducks as high as it safely can. The printed results were checked by hand against docs/rules.md
§2-§3 and copied into tests/rules/test_couleur_records.py and test_belge_club_records.py; the tests do
not run this script.

Run: .venv/bin/python tests/rules/records/couleur/make_belgian_records.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from server.rules import FULL_DECK, Deal, RulesError
from server.rules.cards import rank_of, suit_of

HERE = Path(__file__).parent
OUT = {"couleur": HERE, "belge-club": HERE.parent / "belge-club"}
ROUND = [[FULL_DECK[i] for i in range(52) if i % 4 == seat] for seat in range(4)]
SUIT_HANDS = [[rank + suit for rank in "AKQJT98765432"] for suit in "SHDC"]
Calls = Sequence[tuple[int, str]]


def swap(base: Sequence[Sequence[str]], *pairs: tuple[str, str]) -> list[list[str]]:
    hands = [list(hand) for hand in base]
    for first, second in pairs:
        a = next(seat for seat in range(4) if first in hands[seat])
        b = next(seat for seat in range(4) if second in hands[seat])
        hands[a][hands[a].index(first)] = second
        hands[b][hands[b].index(second)] = first
    return hands


def _winner(cards: list[tuple[int, str]], trump: str | None) -> int:
    best_seat, best = cards[0]
    for seat, card in cards[1:]:
        higher = suit_of(card) == suit_of(best) and rank_of(card) > rank_of(best)
        if higher or (suit_of(card) == trump and suit_of(best) != trump):
            best_seat, best = seat, card
    return best_seat


def choose_card(deal: Deal, seat: int) -> str:
    """Sides that want tricks win cheaply or play low; misère declarers duck; their opponents lead low."""
    assert deal.contract is not None and deal.trick is not None
    contract = deal.contract
    legal = sorted((a.split()[1] for a in deal.legal_actions(seat)), key=rank_of)
    cards = list(deal.trick.cards)
    trump = contract.trump
    wants_none = contract.level <= 1 and seat in contract.declarers
    if wants_none:
        if not cards:
            return legal[0]
        losing = [c for c in legal if _winner([*cards, (seat, c)], trump) != seat]
        return losing[-1] if losing else legal[-1]
    if contract.level <= 1:
        return legal[0]
    team = (
        set(contract.declarers)
        if seat in contract.declarers
        else {s for s in range(4) if s not in contract.declarers}
    )
    if cards and _winner(cards, trump) in team:
        return legal[0]
    winning = [c for c in legal if _winner([*cards, (seat, c)], trump) == seat]
    if not cards:
        return legal[-1]
    return winning[0] if winning else legal[0]


def play_out(deal: Deal, discards: dict[int, str] | None = None) -> None:
    while not deal.finished:
        seat = min(deal.to_act())
        if deal.phase.value == "discard":
            card = (discards or {}).get(seat) or max(deal.hands[seat], key=rank_of)
            deal.apply(seat, f"discard {card}")
        else:
            deal.apply(seat, f"play {choose_card(deal, seat)}")


def seeded(ruleset: str, calls: Calls, dealer: int, accept: Callable[[Deal], bool], prefix: str) -> Deal:
    for number in range(5000):
        deal = Deal.from_seed(ruleset, f"{prefix}-{number}", dealer)
        try:
            for seat, action in calls:
                deal.apply(seat, action)
        except RulesError:
            continue
        probe = Deal.from_seed(ruleset, f"{prefix}-{number}", dealer)
        for seat, action in calls:
            probe.apply(seat, action)
        play_out(probe)
        if accept(probe):
            return deal
    raise SystemExit(f"no seed fits {prefix}")


def built(ruleset: str, hands: list[list[str]], calls: Calls, dealer: int = 3, multiplier: int = 1) -> Deal:
    turn_up = hands[dealer][-1] if ruleset == "belge-club" else None
    deal = Deal(ruleset, hands, dealer, turn_up, {}, multiplier=multiplier)
    for seat, action in calls:
        deal.apply(seat, action)
    return deal


def write(
    name: str,
    deal: Deal,
    extra_actions: Sequence[tuple[int, str]] = (),
    play: bool = True,
    discards: dict[int, str] | None = None,
) -> dict[str, Any]:
    if play:
        play_out(deal, discards)
    record = deal.to_record()
    record["actions"] += [[seat, action] for seat, action in extra_actions]
    ruleset = record["ruleset"]
    (OUT[ruleset] / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
    result = deal.result()
    print(f"{ruleset}/{name}: {json.dumps(result)}")
    return result


def pts(result_filter: Callable[[dict[str, Any]], bool]) -> Callable[[Deal], bool]:
    return lambda deal: result_filter(deal.result())


def couleur_records() -> None:
    c = "couleur"
    write(
        "emballage_made",
        seeded(
            c,
            [(0, "propose H"), (1, "pass"), (2, "accept H"), (3, "pass")],
            3,
            pts(lambda r: r["tricks"][0] + r["tricks"][2] >= 9),
            "c-emb",
        ),
    )
    write(
        "emballage_raised_failed",
        seeded(
            c,
            [
                (0, "propose S"),
                (1, "accept S"),
                (2, "propose H"),
                (3, "accept H"),
                (1, "raise 9"),
                (3, "raise 10"),
                (1, "raise 11"),
                (3, "pass"),
                (2, "pass"),
            ],
            3,
            pts(lambda r: r["tricks"][0] + r["tricks"][1] < 11),
            "c-raise",
        ),
    )
    write(
        "solo_after_lapse",
        seeded(
            c,
            [(0, "propose D"), (1, "propose H"), (2, "pass"), (3, "pass"), (0, "solo 6 D"), (1, "pass")],
            3,
            pts(lambda r: r["tricks"][0] >= 6),
            "c-solo",
        ),
    )
    write(
        "partner_takes_over_solo",
        seeded(
            c,
            [
                (0, "propose S"),
                (1, "accept S"),
                (2, "propose H"),
                (3, "pass"),
                (1, "pass"),
                (2, "renew"),
                (0, "solo 5 S"),
                (2, "pass"),
            ],
            3,
            pts(lambda r: r["tricks"][0] < 5),
            "c-takeover",
        ),
    )
    write(
        "abondance_declarer_leads",
        seeded(
            c,
            [(0, "pass"), (1, "abondance 10 C"), (2, "pass"), (3, "pass")],
            3,
            pts(lambda r: r["tricks"][1] >= 10),
            "c-abon",
        ),
    )
    trou = swap(ROUND, ("AS", "4S"), ("AH", "3H"))
    write("trou_three_aces", built(c, trou, [(0, "pass"), (1, "pass")]))
    royal = swap(ROUND, ("AS", "4S"), ("AH", "3H"), ("AC", "5C"))
    write("trou_royal", built(c, royal, [(1, "pass"), (3, "pass")]))
    write(
        "trou_overcalled_grande_misere",
        built(c, swap(SUIT_HANDS, ("AS", "2H"), ("AD", "3H")), [(2, "grande-misere"), (0, "pass")], dealer=0),
    )
    write(
        "petite_misere_two_declarers",
        built(c, SUIT_HANDS, [(0, "pass"), (1, "petite-misere"), (2, "petite-misere"), (3, "pass")]),
        discards={0: "2S", 1: "AH", 2: "AD", 3: "2C"},
    )
    write(
        "misere_etalee_early_stop",
        built(c, SUIT_HANDS, [(0, "misere-etalee"), (1, "pass"), (2, "pass"), (3, "pass")]),
    )
    write(
        "grand_chelem", built(c, SUIT_HANDS, [(0, "grand-chelem S"), (1, "pass"), (2, "pass"), (3, "pass")])
    )
    write("tour_de_passe", built(c, ROUND, [(0, "pass"), (1, "pass"), (2, "pass"), (3, "pass")]), play=False)
    write(
        "doubled_after_tour_de_passe",
        built(c, SUIT_HANDS, [(0, "pass"), (1, "grande-misere"), (2, "pass"), (3, "pass")], multiplier=2),
    )
    write("illegal_solo_first_call", built(c, ROUND, [(0, "pass")]), [(1, "solo 5 H")], play=False)
    write(
        "illegal_abondance_second_turn",
        built(c, ROUND, [(0, "propose D"), (1, "propose H"), (2, "pass"), (3, "pass")]),
        [(0, "abondance 9 D")],
        play=False,
    )


def club_records() -> None:
    b = "belge-club"
    write(
        "emballage_made",
        seeded(
            b,
            [(0, "propose C"), (1, "accept C"), (2, "pass"), (3, "pass")],
            3,
            pts(lambda r: r["tricks"][0] + r["tricks"][1] >= 8),
            "b-emb",
        ),
    )
    write(
        "maintien_then_tour_de_passe",
        built(b, ROUND, [(0, "propose D"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "maintain")]),
        play=False,
    )
    write(
        "solo_6_after_proposing",
        seeded(
            b,
            [(0, "propose D"), (1, "pass"), (2, "pass"), (3, "pass"), (0, "solo 6 S")],
            3,
            pts(lambda r: r["tricks"][0] >= 6),
            "b-solo",
        ),
    )
    write(
        "piccolo_made",
        seeded(
            b,
            [(0, "pass"), (1, "piccolo"), (2, "pass"), (3, "pass")],
            3,
            pts(lambda r: r["tricks"][1] == 1),
            "b-picc",
        ),
    )
    write(
        "petite_misere_etalee",
        built(b, SUIT_HANDS, [(0, "pass"), (1, "petite-misere-etalee"), (2, "pass"), (3, "pass")]),
        discards={0: "2S", 1: "AH", 2: "2D", 3: "2C"},
    )
    trou = swap(ROUND, ("AS", "4S"), ("AH", "3H"))
    write("trou_bouche_trou_names_trump", built(b, trou, [(3, "trump C"), (0, "pass"), (1, "pass")]))
    write("trou_refused_abondance", built(b, trou, [(3, "abondance 9 C"), (0, "pass"), (1, "pass")]))
    write("trou_beaten_by_abondance_9", built(b, trou, [(3, "trump D"), (0, "abondance 9 S"), (1, "pass")]))
    write(
        "petit_chelem_no_trump",
        built(b, SUIT_HANDS, [(0, "pass"), (1, "petit-chelem NT"), (2, "pass"), (3, "pass")]),
    )
    write(
        "grande_misere_two_declarers",
        built(b, SUIT_HANDS, [(0, "pass"), (1, "grande-misere"), (2, "grande-misere"), (3, "pass")]),
    )
    write(
        "illegal_solo_first_call",
        built(b, ROUND, [(0, "pass"), (1, "pass"), (2, "pass")]),
        [(3, "solo 6 S")],
        play=False,
    )
    write("illegal_bouche_trou_passes", built(b, trou, []), [(3, "pass")], play=False)


if __name__ == "__main__":
    for folder in OUT.values():
        folder.mkdir(parents=True, exist_ok=True)
    couleur_records()
    club_records()
    sys.exit(0)
