"""The per-address bookkeeping behind the limits (server/settings.py `Limits`), and their close codes.

docs/protocol.md ("Limits") lists each limit with the error or close code that answers it.
"""

from __future__ import annotations

import collections

# Close codes of the limits (1008, 1009 and 1011 are the standard ones the server also uses).
CLOSE_TOO_MANY_CONNECTIONS = 1013  # "try again later": too many connections from the client's address
CLOSE_IDLE = 4408  # application code, after HTTP 408: no message for `idle_seconds`
HOUR = 3600.0


class AddressCounts:
    """Open connections per client address."""

    def __init__(self) -> None:
        self.counts: collections.Counter[str] = collections.Counter()

    def add(self, address: str) -> int:
        """Count one more connection from `address`; returns how many it now has."""
        self.counts[address] += 1
        return self.counts[address]

    def remove(self, address: str) -> None:
        """One connection from `address` ended."""
        self.counts[address] -= 1
        if self.counts[address] <= 0:
            del self.counts[address]


class AddressWindow:
    """Times of recent events (rooms created) per client address, over a sliding window."""

    def __init__(self, window: float = HOUR) -> None:
        self.window = window
        self.times: dict[str, collections.deque[float]] = {}

    def recent(self, address: str, now: float) -> int:
        """How many events `address` had within the window before `now`."""
        times = self.times.get(address)
        if times is None:
            return 0
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self.times[address]
            return 0
        return len(times)

    def add(self, address: str, now: float) -> None:
        """Record an event of `address` at `now` (and forget addresses whose events are all old)."""
        if len(self.times) > 10_000:
            for other in list(self.times):
                self.recent(other, now)
        self.times.setdefault(address, collections.deque()).append(now)
