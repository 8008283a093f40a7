"""What a command returns: the new table, the answer, the public events and the log entries."""

from __future__ import annotations

from dataclasses import dataclass, field

from .state import JSON, Table


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of one accepted command.

    `stored` is False for a change of presence only (who is connected, a grace period over): the
    live room then writes nothing and the version stays. `presence` says which participants arrived
    or departed (for a listener that shares presence between processes).
    """

    table: Table
    answer: JSON = field(default_factory=dict)
    events: list[JSON] = field(default_factory=list)
    entries: list[JSON] = field(default_factory=list)
    stored: bool = True
    presence: JSON | None = None
