"""The HTTP API: read-only JSON answers on the WebSocket port, beside the static files (docs/protocol.md,
"HTTP API").

- `GET /api/rooms/<room_id>/records`: a room's finished deal records, as `get_records` answers them:
  from the live layer while the room is live (its read port, `RoomRecords`), else from the archive.
- `GET /api/deals/<session_id>/<n>`: one archived deal's record (a deal's link).
- `GET /api/me` with `Authorization: Bearer <player key>`: that player's sessions, statistics and
  ratings. The key is hashed (`player_hash`) and never appears in an answer, nor any other key or hash.
- `GET /api/ratings/<ruleset>`: the all-time board of a ruleset.

The archive is opened through the port it is given (the archive writer's `archive`): with no archive
(`--archive off`) its answers are 503 `archive_off`, and while it is down 503 `archive_unavailable`;
the server plays on either way.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from .archive import Archive, PlayedSession, SessionFigures, player_hash
from .rules import ruleset_names
from .static_files import add_security_headers

log = logging.getLogger("whist.api")

JSON = dict[str, Any]
#: The live layer's read port: a room's `get_records` answer, or None if the live store has no such room.
RoomRecords = Callable[[str], Awaitable[JSON | None]]
#: Opens (or lends) the archive; raises while it is down.
OpenArchive = Callable[[], Awaitable[Archive]]

PREFIX = "/api/"
# Room and session ids are short URL-safe words; a player key is what the daily challenge accepts.
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_KEY = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
_NUMBER = re.compile(r"^[0-9]{1,6}$")
#: How many sessions `/api/me` lists by default, and at most (`?limit=`).
ME_LIMIT, ME_MAX = 20, 50
#: How many lines a board lists by default, and at most (`?limit=`).
BOARD_LIMIT, BOARD_MAX = 50, 200


class ApiError(Exception):
    """An answer other than 200: its status, its stable code and a sentence."""

    def __init__(self, status: HTTPStatus, code: str, message: str,
                 headers: Sequence[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = tuple(headers)


def json_answer(status: HTTPStatus, data: JSON, *, private: bool = False,
                headers: Sequence[tuple[str, str]] = ()) -> Response:
    """A JSON response; `private` (a player's own data) is never stored by a cache or the browser."""
    body = json.dumps(data, separators=(",", ":")).encode()
    fields = Headers()
    fields["Content-Type"] = "application/json; charset=utf-8"
    fields["Content-Length"] = str(len(body))
    fields["Cache-Control"] = "no-store" if private else "no-cache"
    for name, value in headers:
        fields[name] = value
    add_security_headers(fields)
    return Response(status.value, status.phrase, fields, body)


def _limit(query: dict[str, list[str]], default: int, most: int) -> int:
    values = query.get("limit")
    if not values:
        return default
    if not _NUMBER.match(values[-1]) or not 1 <= int(values[-1]) <= most:
        raise ApiError(HTTPStatus.BAD_REQUEST, "bad_limit", f"limit must be a whole number from 1 to {most}")
    return int(values[-1])


def bearer_key(headers: Headers) -> str:
    """The player key of `Authorization: Bearer <key>`; 401 without one or with a malformed one."""
    value = headers.get("Authorization")
    if value is None:
        raise ApiError(HTTPStatus.UNAUTHORIZED, "unauthorized",
                       "send your player key: Authorization: Bearer <key>",
                       [("WWW-Authenticate", 'Bearer realm="whist"')])
    scheme, _, key = value.strip().partition(" ")
    if scheme.lower() != "bearer" or not _KEY.match(key.strip()):
        raise ApiError(HTTPStatus.UNAUTHORIZED, "bad_key", "the player key is malformed",
                       [("WWW-Authenticate", 'Bearer realm="whist", error="invalid_token"')])
    return key.strip()


def deal_link(session_id: str, number: int) -> str:
    """The address of one archived deal's record."""
    return f"{PREFIX}deals/{quote(session_id, safe='')}/{number}"


def played_session(entry: PlayedSession, session: SessionFigures) -> JSON:
    """One session of a player's history as they see it: every seat by name (a bot by its level too),
    the balances, and the deals from their seat, each with its record's link. No player key or hash."""
    seat = entry.seat
    return {
        "session_id": session.session_id, "room_id": session.room_id, "ruleset": session.ruleset,
        "started_at": session.started_at, "ended_at": session.ended_at, "complete": session.complete,
        "seat": seat, "balance": entry.balance, "rank": entry.rank,
        "seats": [{"kind": s.kind, "name": s.name, "bot": s.bot} for s in session.seats],
        "balances": list(session.balances),
        "deals": [{"number": deal.number, "status": deal.status, "contract": deal.contract,
                   "contract_kind": deal.contract_kind, "declarer": seat in deal.declarers, "made": deal.made,
                   "tricks": deal.tricks[seat], "points": deal.points[seat],
                   "record": deal_link(session.session_id, deal.number)}
                  for deal in session.deals],
    }


class Api:
    """The `/api/` answers, given the live layer's read port and the archive's opener (None: no archive)."""

    def __init__(self, live_records: RoomRecords, archive: OpenArchive | None) -> None:
        self._live_records = live_records
        self._archive = archive

    async def respond(self, request: Request) -> Response:
        """The answer to a request under `/api/` (errors too: a JSON body with `error` and `message`)."""
        split = urlsplit(request.path)
        parts = [unquote(part) for part in split.path[len(PREFIX):].split("/")]
        query = parse_qs(split.query)
        private = parts == ["me"]
        try:
            answer = await self._route(parts, query, request.headers)
            return json_answer(HTTPStatus.OK, answer, private=private)
        except ApiError as problem:
            return json_answer(problem.status, {"error": problem.code, "message": problem.message},
                               private=private, headers=problem.headers)

    async def _route(self, parts: list[str], query: dict[str, list[str]], headers: Headers) -> JSON:
        match parts:
            case ["rooms", room_id, "records"] if _ID.match(room_id):
                return await self.room_records(room_id)
            case ["deals", session_id, number] if _ID.match(session_id) and _NUMBER.match(number):
                return await self.deal(session_id, int(number))
            case ["me"]:
                key = bearer_key(headers)
                return await self.me(key, _limit(query, ME_LIMIT, ME_MAX))
            case ["ratings", ruleset]:
                if ruleset not in ruleset_names():
                    raise ApiError(HTTPStatus.NOT_FOUND, "unknown_ruleset", f"no ruleset {ruleset!r}")
                return await self.board(ruleset, _limit(query, BOARD_LIMIT, BOARD_MAX))
        raise ApiError(HTTPStatus.NOT_FOUND, "not_found", "no such API address")

    async def _read(self, question: Callable[[Archive], Awaitable[Any]]) -> Any:
        """Ask the archive; 503 when there is none or it does not answer."""
        if self._archive is None:
            raise ApiError(HTTPStatus.SERVICE_UNAVAILABLE, "archive_off",
                           "this server keeps no archive of finished games (--archive off)")
        try:
            return await question(await self._archive())
        except Exception as error:  # any failure of the archive: it is down, play goes on
            problem = f"{type(error).__name__}: {error}"
            log.warning("archive read failed", extra={"fields": {"error": problem}})
            raise ApiError(HTTPStatus.SERVICE_UNAVAILABLE, "archive_unavailable",
                           "the archive does not answer: try again later") from None

    async def room_records(self, room_id: str) -> JSON:
        """A room's finished deals: the live layer's while the live store has the room, else the
        archive's. With no archive a room the live store does not hold is unknown (404)."""
        try:
            live = await self._live_records(room_id)
        except Exception as error:  # the live store does not answer
            log.warning("live records failed", extra={"fields": {"room_id": room_id, "error": repr(error)}})
            raise ApiError(HTTPStatus.SERVICE_UNAVAILABLE, "store_unavailable",
                           "the store does not answer: try again later") from None
        if live is not None:
            return live
        if self._archive is None:
            raise ApiError(HTTPStatus.NOT_FOUND, "no_such_room", f"no room with id {room_id!r}")
        records: list[JSON] = await self._read(lambda archive: archive.room_records(room_id))
        if not records:
            raise ApiError(HTTPStatus.NOT_FOUND, "no_such_room", f"no room with id {room_id!r}")
        return {"room_id": room_id, "records": records}

    async def deal(self, session_id: str, number: int) -> JSON:
        """One archived deal's record."""
        record: JSON | None = await self._read(lambda archive: archive.deal_record(session_id, number))
        if record is None:
            raise ApiError(HTTPStatus.NOT_FOUND, "no_such_deal",
                           f"no deal {number} in session {session_id!r}")
        return {"session_id": session_id, "number": number, "record": record}

    async def me(self, key: str, limit: int) -> JSON:
        """The history of the player whose key this is: no key or hash of anyone in it."""
        player = player_hash(key)

        async def ask(archive: Archive) -> JSON:
            history = await archive.player_history(player, limit)
            figures = await archive.session_figures([entry.session_id for entry in history.sessions])
            sessions = [played_session(entry, figures[entry.session_id])
                        for entry in history.sessions if entry.session_id in figures]
            public = history.public()
            return {"sessions": sessions, "statistics": public["statistics"], "ratings": public["ratings"]}

        answer: JSON = await self._read(ask)
        return answer

    async def board(self, ruleset: str, limit: int) -> JSON:
        """The all-time board of a ruleset, humans and bot levels on one scale, by ordinal."""
        lines = await self._read(lambda archive: archive.leaderboard(ruleset, limit))
        return {"ruleset": ruleset,
                "entries": [{"rank": rank, **line.public()} for rank, line in enumerate(lines, 1)]}
