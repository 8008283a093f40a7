"""Worlds for a search bot: samples of the hidden cards drawn in proportion to how well they fit the calls.

`draw_worlds` draws a fixed pool of deals consistent with the view (`sample_hidden_hands`), weights
each by `world_weight` (the auction's inferences), and keeps a fixed number by systematic resampling
from a generator seeded by the decision: the same view and seed give the same worlds in any process.
Repeated draws are merged into one world with a multiplicity, so no world is searched twice.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .base import decision_rng
from .inference import world_weight
from .knowledge import Knowledge, SampledDeal, sample_hidden_hands

View = Mapping[str, Any]


@dataclass(frozen=True)
class World:
    """A sampled deal of the hidden cards and how many of the kept draws it stands for."""

    sample: SampledDeal
    weight: int


#: Where a search bot gets its worlds from: (view, seed) -> worlds. The expert samples them; the
#: benchmark's oracle returns the one true deal.
WorldSource = Callable[[Mapping[str, Any], str], list[World]]


#: How likely a sample is, given the view: (view, knowledge, sample) -> relative weight (0: impossible).
Weigh = Callable[[Mapping[str, Any], Knowledge, SampledDeal], float]


def draw_worlds(view: View, knowledge: Knowledge, seed: str, count: int, pool: int,
                weigh: Weigh = world_weight) -> list[World]:
    """`count` draws (fewer distinct worlds when draws repeat) out of `pool` samples weighted by `weigh`
    (by default the auction's inferences alone)."""
    rng: random.Random = decision_rng(view, seed)
    samples = sample_hidden_hands(knowledge, f"{seed}:{rng.getrandbits(64)}", pool)
    weights = [weigh(view, knowledge, sample) for sample in samples]
    total = sum(weights)
    if total <= 0.0:
        # Every sample contradicts the calls as this module reads them: fall back to the certain facts.
        weights, total = [1.0] * len(samples), float(len(samples))
    step = total / count
    point = rng.random() * step
    picked: dict[int, int] = {}
    cumulative = 0.0
    index = 0
    for _ in range(count):
        while index < len(samples) - 1 and cumulative + weights[index] <= point:
            cumulative += weights[index]
            index += 1
        picked[index] = picked.get(index, 0) + 1
        point += step
    return [World(samples[i], n) for i, n in sorted(picked.items())]
