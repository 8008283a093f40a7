"""Order statistics shared by the match tool (`server/bots/match.py`) and the benchmarks (`bench/`):
one percentile formula for every figure the project reports."""

from __future__ import annotations

import math
from collections.abc import Iterable


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (0-100) of `values` by the nearest-rank method: the smallest value with at
    least q% of the values at or below it (p50 of 1, 2, 3, 4 is 2; p100 is the largest, p0 the smallest).

    No values give `nan`: no figure, rather than a 0 that reads as a measurement; it prints as `nan`
    and every figure computed from it is `nan` too.
    """
    ordered = sorted(values)
    if not ordered:
        return math.nan
    # q * n first, then the division: 99 * 100 / 100 is exactly 99 (0.99 * 100 need not be).
    rank = math.ceil(q * len(ordered) / 100)
    return float(ordered[min(len(ordered), max(rank, 1)) - 1])
