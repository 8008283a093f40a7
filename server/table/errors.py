"""Typed table errors: why a command was refused. Nothing changed when one is raised.

The core knows no wire codes: `server/app.py` maps each class to its stable error code (`ERROR_CODES`).
"""

# ruff: noqa: N818 (the names say what was refused; "Error" is the base class's, `TableError`)

from __future__ import annotations


class TableError(Exception):
    """A command the table refuses; `message` says why, in words a player understands."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UnknownRuleset(TableError):
    """`create_room` named a ruleset this server does not have."""


class BadHouseRules(TableError):
    """A house rule the ruleset does not know, or a value it does not take."""


class UnknownBot(TableError):
    """A bot kind this server does not have."""


class NoSuchRoom(TableError):
    """No room has this id."""


class NotInRoom(TableError):
    """The connection is in no room."""


class SessionOver(TableError):
    """The session is over."""


class NotStarted(TableError):
    """The host has not started the session."""


class AlreadyStarted(TableError):
    """The session has started already."""


class AlreadySeated(TableError):
    """The participant holds a seat already."""


class RoomFull(TableError):
    """No seat is free."""


class SeatTaken(TableError):
    """The seat asked for is not free."""


class BadToken(TableError):
    """The room knows no such seat token."""


class NotHost(TableError):
    """Only the host may do this."""


class NotABot(TableError):
    """`remove_bot` on a seat that holds no bot."""


class DailyRoom(TableError):
    """A daily challenge's bots stay."""


class SpectatorCannotAct(TableError):
    """A spectator asked to act (or for a hint)."""


class NotYourSeat(TableError):
    """A player named another seat than their own."""


class NotSeated(TableError):
    """Only a seated player may do this."""


class NotYourTurn(TableError):
    """Another seat is to act."""


class IllegalAction(TableError):
    """The rules forbid this action now."""


class MalformedAction(TableError):
    """Not an action of the deal-record vocabulary."""


class SessionNotOver(TableError):
    """"Play again" before the session is over."""


class DealInProgress(TableError):
    """The deal is still being played."""


class HintsOff(TableError):
    """This room gives no hints (a daily challenge)."""


class MalformedChat(TableError):
    """A chat request with neither or both of `text` and `phrase`, or an unknown phrase."""


class ChatEmpty(TableError):
    """A chat line with no text left once trimmed."""


class ChatTooLong(TableError):
    """A chat line longer than the limit."""


class ChatRateLimited(TableError):
    """Too many chat lines from one connection in a short time."""


class ChatMuted(TableError):
    """The host muted this seat's chat."""


class Conflict(TableError):
    """The stored room changed under the command (another writer won); nothing was applied."""


class StoreUnavailable(TableError):
    """The store did not answer; nothing was applied."""


# Refusals of an action that may come from a stale view: the live room sends a fresh `state` with them.
STALE = (NotYourTurn, IllegalAction, Conflict, StoreUnavailable)
