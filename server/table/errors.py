"""Typed table errors: why a command was refused. Nothing changed when one is raised.

Each class carries what the edge needs, beside it: its stable wire `code` (docs/protocol.md lists every
one, and the web client has a message for each in every language) and whether the refusal may come
from an old copy of the room (`stale_view`, `stale_copy`). Adding an error is adding a class here.
"""

# ruff: noqa: N818 (the names say what was refused; "Error" is the base class's, `TableError`)

from __future__ import annotations

from typing import ClassVar

from ..rules import errors as rules_errors


class TableError(Exception):
    """A command the table refuses; `message` says why, in words a player understands.

    `code`: the stable wire code. `stale_view`: the refusal may come from a client that acted on an old
    view (the live room sends it the current state with the refusal). `stale_copy`: the refusal may come
    from a live copy of the room that is behind the store (the command is judged again after catching up).
    """

    code: ClassVar[str]
    stale_view: ClassVar[bool] = False
    stale_copy: ClassVar[bool] = True

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnknownRuleset(TableError):
    """`create_room` named a ruleset this server does not have."""

    code = "unknown_ruleset"
    stale_copy = False


class BadHouseRules(TableError):
    """A house rule the ruleset does not know, or a value it does not take."""

    code = "bad_house_rules"
    stale_copy = False


class UnknownBot(TableError):
    """A bot kind this server does not have."""

    code = "unknown_bot"
    stale_copy = False


class NoSuchRoom(TableError):
    """No room has this id."""

    code = "no_such_room"
    stale_copy = False


class NotInRoom(TableError):
    """The connection is in no room."""

    code = "not_in_room"
    stale_copy = False


class SessionOver(TableError):
    """The session is over."""

    code = "session_over"


class NotStarted(TableError):
    """The host has not started the session."""

    code = "not_started"


class AlreadyStarted(TableError):
    """The session has started already."""

    code = "already_started"


class AlreadySeated(TableError):
    """The participant holds a seat already."""

    code = "already_seated"


class RoomFull(TableError):
    """No seat is free."""

    code = "room_full"


class SeatTaken(TableError):
    """The seat asked for is not free."""

    code = "seat_taken"


class BadToken(TableError):
    """The room knows no such seat token."""

    code = "bad_token"


class NotHost(TableError):
    """Only the host may do this."""

    code = "not_host"


class NotABot(TableError):
    """`remove_bot` on a seat that holds no bot."""

    code = "not_a_bot"


class DailyRoom(TableError):
    """A daily challenge's bots stay."""

    code = "daily_room"


class SpectatorCannotAct(TableError):
    """A spectator asked to act (or for a hint)."""

    code = "spectator_cannot_act"
    stale_copy = False


class NotYourSeat(TableError):
    """A player named another seat than their own."""

    code = "not_your_seat"


class NotSeated(TableError):
    """Only a seated player may do this."""

    code = "not_seated"


class NotYourTurn(TableError):
    """Another seat is to act."""

    code = "not_your_turn"
    stale_view = True


class IllegalAction(TableError, rules_errors.IllegalAction):
    """The rules forbid this action now (the rules' `IllegalAction`, refused at a table)."""

    code = "illegal_action"
    stale_view = True


class MalformedAction(TableError, rules_errors.MalformedAction):
    """Not an action of the deal-record vocabulary (the rules' `MalformedAction`, refused at a table)."""

    code = "malformed_action"
    stale_copy = False


class SessionNotOver(TableError):
    """"Play again" before the session is over."""

    code = "session_not_over"


class DealInProgress(TableError):
    """The deal is still being played."""

    code = "deal_in_progress"


class BadDay(TableError):
    """A day that is not a date written YYYY-MM-DD (the daily challenge's leaderboard)."""

    code = "invalid_message"
    stale_copy = False


class NotDaily(TableError):
    """A daily challenge's question from a connection in no daily game."""

    code = "not_daily"
    stale_copy = False


class DealNotFinished(TableError):
    """How others played a deal that the asker's own daily game has not finished."""

    code = "deal_not_finished"
    stale_copy = False


class HintsOff(TableError):
    """This room gives no hints (a daily challenge)."""

    code = "hints_off"
    stale_copy = False


class MalformedChat(TableError):
    """A chat request with neither or both of `text` and `phrase`, or an unknown phrase."""

    code = "malformed_chat"
    stale_copy = False


class ChatEmpty(TableError):
    """A chat line with no text left once trimmed."""

    code = "chat_empty"
    stale_copy = False


class ChatTooLong(TableError):
    """A chat line longer than the limit."""

    code = "chat_too_long"
    stale_copy = False


class ChatRateLimited(TableError):
    """Too many chat lines from one connection in a short time."""

    code = "rate_limited"
    stale_copy = False


class ChatMuted(TableError):
    """The host muted this seat's chat."""

    code = "chat_muted"


class Conflict(TableError):
    """The stored room changed under the command (another writer won); nothing was applied."""

    code = "conflict"
    stale_view = True


class StoreUnavailable(TableError):
    """The store did not answer; nothing was applied."""

    code = "store_unavailable"
    stale_view = True
    stale_copy = False


def every_error() -> list[type[TableError]]:
    """Every table error class that has a wire code, in the order they are defined here."""
    found: list[type[TableError]] = []
    pending = list(TableError.__subclasses__())
    while pending:
        kind = pending.pop(0)
        found.append(kind)
        pending.extend(kind.__subclasses__())
    return [kind for kind in found if "code" in vars(kind)]


# Read from the classes (for `except`): refusals that may come from the client's old view, and those
# that no catching up with the store can change.
STALE = tuple(kind for kind in every_error() if kind.stale_view)
NEVER_STALE = tuple(kind for kind in every_error() if not kind.stale_copy)
