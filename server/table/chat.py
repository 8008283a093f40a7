"""Table chat, the pure part: what a line may say, who may read it, and the host's mute.

A line is free text (at most `MAX_CHARS` characters once trimmed, control characters removed) or one
of the quick `PHRASES`, which every client shows in its own language. Players' lines reach everyone in
the room; spectators' lines reach only the spectators (no coaching from the rail). Chat is not part
of the table's state nor of deal records: the live layer keeps the last `KEEP_LINES` lines beside the
room in the store and sends them on their own channel.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from . import errors
from .facts import seat_of
from .outcome import Outcome
from .seating import check_host
from .state import JSON, Table

MAX_CHARS = 200
KEEP_LINES = 50
#: The quick phrases' keys (the clients hold their words in every language).
PHRASES = ("well_played", "sorry_partner", "thanks", "good_luck", "your_turn")
#: Who reads a line: everyone, or only the spectators (a spectator's line).
EVERYONE, SPECTATORS = "everyone", "spectators"
#: Unicode's format characters that reorder or hide text (bidirectional overrides and isolates).
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def clean_text(text: str) -> str:
    """The text as shown: control characters (tabs and new lines become spaces) and bidirectional
    overrides removed, trimmed. Raises `ChatEmpty` or `ChatTooLong`."""
    kept = []
    for char in text:
        if char in "\t\n\r":
            kept.append(" ")
        elif unicodedata.category(char) == "Cc" or char in _BIDI_CONTROLS:
            continue
        else:
            kept.append(char)
    cleaned = "".join(kept).strip()
    if not cleaned:
        raise errors.ChatEmpty("a chat line needs some text (or a quick phrase)")
    if len(cleaned) > MAX_CHARS:
        raise errors.ChatTooLong(f"a chat line has at most {MAX_CHARS} characters; this one has "
                                 f"{len(cleaned)}")
    return cleaned


def new_line(table: Table, participant: str | None, name: str, text: str | None, phrase: str | None,
             at: float) -> JSON:
    """One chat line from the holder of `participant` (a spectator when it holds no seat): `from`,
    `text` or `phrase`, `at` (Unix seconds) and its `audience`. Raises a `TableError` if it may not
    be said."""
    if (text is None) == (phrase is None):
        raise errors.MalformedChat("a chat line has either 'text' or 'phrase'")
    seat = seat_of(table, participant)
    if seat is not None and seat in table.chat_muted:
        raise errors.ChatMuted("the host has muted your seat's chat")
    line: JSON = {"from": {"seat": seat, "name": table.seats[seat].name if seat is not None else name},
                  "at": at, "audience": EVERYONE if seat is not None else SPECTATORS}
    if phrase is not None:
        if phrase not in PHRASES:
            raise errors.MalformedChat(f"unknown phrase {phrase!r}; known: {', '.join(PHRASES)}")
        line["phrase"] = phrase
    else:
        assert text is not None
        line["text"] = clean_text(text)
    return line


def readable_by(line: JSON, seated: bool) -> bool:
    """Whether a connection (holding a seat, or a spectator) may read `line`."""
    return line.get("audience", EVERYONE) == EVERYONE or not seated


def on_the_wire(line: JSON) -> JSON:
    """The line as a `chat` push carries it (its audience stays on the server)."""
    return {key: value for key, value in line.items() if key != "audience"}


def mute_seat(table: Table, participant: str | None, seat: int, muted: bool) -> Outcome:
    """Host: mute (or unmute) a seat's chat for everyone."""
    check_host(table, participant)
    if not 0 <= seat <= 3:
        raise errors.MalformedChat(f"no seat {seat}")
    now_muted = table.chat_muted | {seat} if muted else table.chat_muted - {seat}
    if now_muted == table.chat_muted:
        return Outcome(table, {"seat": seat, "muted": muted}, stored=False)
    return Outcome(replace(table, chat_muted=now_muted), {"seat": seat, "muted": muted},
                   [{"type": "chat_muted", "seat": seat, "muted": muted}],
                   [{"t": "chat_muted", "seat": seat, "muted": muted}])
