"""The rulesets by name: one explicit table, so that nothing depends on import side effects.

Adding a ruleset is one data file (`seeds/<name>.toml`), one module in `variants/` and one line in
`RULESETS` (docs/adding-a-ruleset.md).
"""

from __future__ import annotations

from .ruleset import HouseRuleError, Ruleset
from .variants.belge_club import BelgeClub
from .variants.couleur import Couleur
from .variants.solo_whist import SoloWhist
from .variants.whist import Whist

#: Every ruleset class, by its name.
RULESETS: dict[str, type[Ruleset]] = {cls.name: cls for cls in (SoloWhist, Couleur, BelgeClub, Whist)}

_INSTANCES: dict[str, Ruleset] = {}


def get_ruleset(name: str) -> Ruleset:
    """The ruleset called `name` (one instance per name, built on first use)."""
    if name not in RULESETS:
        raise HouseRuleError(f"unknown ruleset {name!r}; known: {', '.join(sorted(RULESETS))}")
    if name not in _INSTANCES:
        _INSTANCES[name] = RULESETS[name]()
    return _INSTANCES[name]


def ruleset_names() -> list[str]:
    """The names of every ruleset."""
    return sorted(RULESETS)


def as_ruleset(ruleset: Ruleset | str) -> Ruleset:
    """`ruleset` itself, or the ruleset of that name."""
    return get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
