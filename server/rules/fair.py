"""Provably fair deals: the public commitment to a deal's seed.

When a deal starts every seat and spectator is shown `seed_commitment(seed)`, the lower-case hex
SHA-256 digest of the seed's UTF-8 bytes; the seed itself is shown only once the deal has ended. Anyone
can then check that the seed matches the commitment and re-deal the hands from it (`deck.py`,
docs/deal-record.md "Checking a deal by hand"), so the cards cannot have been chosen after the start.
"""

from __future__ import annotations

import hashlib


def seed_commitment(seed: str) -> str:
    """The commitment to `seed`: hex of SHA-256 over its UTF-8 bytes."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()
