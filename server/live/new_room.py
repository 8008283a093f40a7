"""What the live layer needs to create a room: its own request, free of the wire format (the edge
converts a `create_room` message into it: `server.protocol.CreateRoom.new_room`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class SessionSpan:
    """How long a session lasts: `deals` played deals, a `target` balance, both, or neither (open)."""

    deals: int | None = None
    target: int | None = None


@dataclass(frozen=True, slots=True)
class NewRoom:
    """A room to create: its ruleset and options, and where its creator sits (`"any"`: the first free
    seat; None: the creator does not sit)."""

    ruleset: str
    house_rules: Mapping[str, Any] = field(default_factory=dict)
    session: SessionSpan = field(default_factory=SessionSpan)
    listed: bool = True
    bot: str | None = None
    name: str | None = None
    seat: int | Literal["any"] | None = "any"
    grace_seconds: float = 30.0
    turn_seconds: float = 0.0  # the turn clock (0: none); the edge applies the documented defaults
