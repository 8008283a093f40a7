"""The pure rules engine: Solo Whist, whist à la couleur, the Belgian club rules and classic whist.

Standard library only: no I/O beyond reading the ruleset data files, no asyncio, no server imports.
"""

from .cards import FULL_DECK, RANKS, SUITS, parse_card, rank_of, sort_hand, suit_of
from .deal import Deal, Phase, Trick
from .deck import cut_for_dealer, deal_from_seed, shuffled_deck
from .errors import IllegalAction, MalformedAction, MalformedRecord, RulesError
from .fair import seed_commitment
from .record import RecordError, replay
from .registry import get_ruleset, ruleset_names
from .ruleset import Contract, HouseRule, HouseRuleError, Ruleset
from .session import Session

__all__ = [
    "FULL_DECK", "RANKS", "SUITS", "Contract", "Deal", "HouseRule", "HouseRuleError", "IllegalAction",
    "MalformedAction", "MalformedRecord", "Phase", "RecordError", "RulesError", "Ruleset", "Session", "Trick",
    "cut_for_dealer", "deal_from_seed", "get_ruleset", "parse_card", "rank_of", "replay", "ruleset_names",
    "seed_commitment", "shuffled_deck", "sort_hand", "suit_of",
]
