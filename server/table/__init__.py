"""The pure table core: a typed table state and one pure function per command.

No asyncio, no store, no sockets: each command takes a `Table` (and what it needs: a token, the time)
and returns an `Outcome` (the new table, the answer, the public events, the log entries) or raises a
`TableError`. The live room (`server/live/`) applies them under its lock and stores the result.
"""

from . import chat, clock, errors, facts, play, presence, seating
from .errors import TableError
from .outcome import Outcome
from .state import (
    JSON,
    SEATS,
    Daily,
    Hint,
    Options,
    Presence,
    Seat,
    Table,
    TurnClock,
    advance,
    deal_records,
    from_stored,
    hash_token,
    records_from_log,
    session_from_log,
    to_stored,
)

__all__ = [
    "JSON", "SEATS", "Daily", "Hint", "Options", "Outcome", "Presence", "Seat", "Table", "TableError",
    "TurnClock", "advance", "chat", "clock", "deal_records", "errors", "facts", "from_stored", "hash_token",
    "play", "presence", "records_from_log", "seating", "session_from_log", "to_stored",
]
