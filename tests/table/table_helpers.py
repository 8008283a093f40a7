"""Helpers of the table core tests: tables built by the core's own commands, and players' tokens."""

from __future__ import annotations

from server.table import Outcome, Table, hash_token, seating

NOW = 1000.0  # monotonic seconds, as the live room passes them
TOKENS = [f"token-of-seat-{seat}" for seat in range(4)]
HOST_TOKEN = TOKENS[0]


def participant(seat: int) -> str:
    """The participant (token hash) of the player who took `seat` in `seated_table`."""
    return hash_token(TOKENS[seat])


def new_table(ruleset: str = "solo-whist", seat: int | None = 0, **options: object) -> Outcome:
    """`create` with test defaults; the host holds `HOST_TOKEN`."""
    settings: dict[str, object] = {
        "house_rules": {}, "bot": "random", "name": None, "deals": 2, "target": None,
        "grace_seconds": 30.0, "listed": True, "now": 1_764_441_000.0,
    }
    settings.update(options)
    return seating.create("room1", token=HOST_TOKEN, player="Ann", ruleset=ruleset, seat=seat,
                          **settings)  # type: ignore[arg-type]


def seated_table(humans: int = 4, ruleset: str = "solo-whist") -> Table:
    """A waiting table whose first `humans` seats are held by humans (seat 0: the host)."""
    table = new_table(ruleset).table
    for seat in range(1, humans):
        table = seating.join(table, TOKENS[seat], f"P{seat}", seat).table
    return table


def started_table(humans: int = 4, ruleset: str = "solo-whist") -> Table:
    """`seated_table`, started (bots on the other seats)."""
    return seating.start(seated_table(humans, ruleset), participant(0), "secret-1").table
