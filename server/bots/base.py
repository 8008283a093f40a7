"""The bot interface the server calls, and the registry of bots by name.

A bot is given a seat's view (a read-only mapping, exactly what that seat's client receives), a seed
and a time budget, and returns one of `view["legal"]`. Given the same view and seed it returns the same
action in any process: bots may use randomness only from `random.Random(derived seed)`.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import random
from collections.abc import Callable, Mapping
from typing import Any, Protocol

View = Mapping[str, Any]


class BotError(Exception):
    """A bot was asked to act where it has no legal action, or an unknown bot was requested."""


class Bot(Protocol):
    """A seat player."""

    name: str

    def decide(self, view: View, seed: str, budget_ms: float = 20.0) -> str:
        """Return one action of `view["legal"]` for `view["seat"]`."""
        ...


def decision_rng(view: View, seed: str) -> random.Random:
    """A random generator fixed by the seed and the decision point (the public history and own hand)."""
    key = json.dumps([seed, view.get("seat"), view.get("hand"), view.get("calls"), view.get("tricks"),
                      view.get("trick"), view.get("phase")], sort_keys=True, separators=(",", ":"))
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def legal_actions_of(view: View) -> list[str]:
    """The seat's legal actions in `view`, or `BotError` when it has none (a bot asked out of turn)."""
    legal = [str(action) for action in view.get("legal") or []]
    if not legal:
        raise BotError(f"seat {view.get('seat')} has no legal action in phase {view.get('phase')}")
    return legal


class RandomBot:
    """The baseline: a uniformly random legal action, reproducible from the seed."""

    name = "random"

    def decide(self, view: View, seed: str, budget_ms: float = 20.0) -> str:
        """A random legal action."""
        return decision_rng(view, seed).choice(legal_actions_of(view))


_FACTORIES: dict[str, Callable[[], Bot]] = {"random": RandomBot}

#: One line per bot level for players (the web client shows it beside the level), in English and French.
BOT_LEVELS: dict[str, dict[str, str]] = {
    "random": {"en": "Beginner: plays any legal card at random; for learning the rules.",
               "fr": "Débutant : joue une carte permise au hasard ; pour apprendre les règles."},
    "heuristic": {"en": "Club player: bids by counting its tricks and plays by the classic rules of thumb.",
                  "fr": "Joueur de club : annonce en comptant ses levées et joue selon les règles d'usage."},
    "expert": {"en": "Expert: reads the bidding and the cards played, imagines the hidden hands and "
                     "calculates every card.",
               "fr": "Expert : lit les annonces et les cartes jouées, imagine les mains cachées et "
                     "calcule chaque carte."},
}


def register_bot(name: str, factory: Callable[[], Bot]) -> None:
    """Make a bot available by name."""
    _FACTORIES[name] = factory


def get_bot(name: str) -> Bot:
    """A new bot of the given name (`random`, `heuristic`, ...)."""
    if name not in _FACTORIES:
        raise BotError(f"unknown bot {name!r}; known: {', '.join(sorted(_FACTORIES))}")
    return _FACTORIES[name]()


def load_bot(spec: str) -> Bot:
    """A bot by registered name, or by `package.module:ClassName` (a bot kept out of the registry,
    such as the benchmark's oracle): the class is imported and called with no arguments."""
    if ":" not in spec:
        return get_bot(spec)
    module_name, _, class_name = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError) as error:
        raise BotError(f"cannot load bot {spec!r}: {error}") from error
    bot: Bot = factory()
    return bot


def bot_names() -> list[str]:
    """The names of every registered bot."""
    return sorted(_FACTORIES)
