"""The stages of a deal and its tricks: the shapes that `deal.py` fills and `views.py` shows."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from .cards import rank_of
from .copying import CopyPlan


class Phase(StrEnum):
    """The stages of a deal, in order (a stage may be skipped)."""

    AUCTION = "auction"
    TRUMP = "trump"
    DISCARD = "discard"
    PLAY = "play"
    END = "end"


class Trick:
    """A trick: who led it, the cards in the order played, and (when complete) who won it."""

    __slots__ = ("cards", "leader", "winner")

    def __init__(self, leader: int) -> None:
        self.leader = leader
        self.cards: list[tuple[int, str]] = []
        self.winner: int | None = None

    def clone(self) -> Trick:
        """An independent copy (see `copying.py`)."""
        return _TRICK_COPY.copy(self)

    def as_dict(self) -> dict[str, Any]:
        """The trick as JSON-ready data."""
        cards = [[seat, card] for seat, card in self.cards]
        return {"leader": self.leader, "cards": cards, "winner": self.winner}


_TRICK_COPY = CopyPlan("Trick", shared=("leader", "winner"), copied={"cards": list.copy})


def trick_winner(cards: Sequence[tuple[int, str]], trump: str | None) -> int:
    """The highest trump wins, else the highest card of the suit led."""
    best_seat, best_card = cards[0]
    for seat, card in cards[1:]:
        if card[1] == best_card[1]:
            if rank_of(card) > rank_of(best_card):
                best_seat, best_card = seat, card
        elif card[1] == trump:  # the best card so far is not a trump
            best_seat, best_card = seat, card
    return best_seat
