"""Write the `whist` deal records of this folder (run from the repository root).

Two kinds: records dealt from a seed and played by four heuristic bots (each keeps its seed and seed
commitment, so `python -m server.rules verify` checks it), and records of hands built by hand whose
outcome can be followed without the engine (see each record's note in tests/rules/test_whist_records.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from server.bots import get_bot
from server.rules import Deal

HERE = Path(__file__).resolve().parent


def bot_played(seed: str, dealer: int, house_rules: dict[str, Any]) -> dict[str, Any]:
    deal = Deal.from_seed("whist", seed, dealer, house_rules)
    bot = get_bot("heuristic")
    while not deal.finished:
        seat = min(deal.to_act())
        deal.apply(seat, bot.decide(deal.view(seat), f"{seed}:{len(deal.log)}", 20.0))
    return deal.to_record()


def suits_apart(honours: bool) -> dict[str, Any]:
    """Each seat holds one whole suit; the dealer (3) holds clubs and turns up 2C: clubs are trump.
    Eldest (0) leads spades, seat 3 ruffs, then leads clubs that nobody can follow or ruff: 13 tricks."""
    suits = ["S", "H", "D", "C"]
    hands = [" ".join(rank + suit for rank in "AKQJT98765432") for suit in suits]
    deal = Deal("whist", [hand.split() for hand in hands], 3, "2C", {"honours": honours})
    while not deal.finished:
        seat = min(deal.to_act())
        deal.apply(seat, deal.legal_actions(seat)[0])  # the highest card of the first suit shown
    return deal.to_record()


def main() -> None:
    records = {
        "seeded_dealer_0.json": bot_played("whist-record-1", 0, {}),
        "seeded_dealer_2_honours.json": bot_played("whist-record-2", 2, {"honours": True}),
        "seeded_dealer_3_target_7.json": bot_played("whist-record-3", 3, {"target": 7}),
        "suits_apart.json": suits_apart(False),
        "honours_counted.json": suits_apart(True),
    }
    for name, record in records.items():
        (HERE / name).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print("wrote", name)


if __name__ == "__main__":
    main()
