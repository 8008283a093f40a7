"""The wire protocol: every message as a pydantic v2 model in one discriminated union on `type`.

JSON text frames and msgpack binary frames carry the same schema (see docs/protocol.md). Decoding turns
bytes into a validated request or a `ProtocolError` with a stable code; encoding turns a message into a
frame in the client's encoding.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, get_args

import msgpack  # type: ignore[import-untyped]
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .live.new_room import NewRoom, SessionSpan
from .rules import get_ruleset, ruleset_names

PROTOCOL_VERSION = 1
MAX_FRAME_BYTES = 64 * 1024

RequestId = int | str


class ProtocolError(Exception):
    """A request that cannot be served; `code` is stable, `message` says what is wrong."""

    def __init__(self, code: str, message: str, request_id: RequestId | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Request(_Message):
    id: RequestId


# ------------------------------------------------------------------------------------------- requests

# A browser's player key (kept like a seat token; the server keeps only its hash): 16-128 characters of
# the URL-safe base64 alphabet.
PlayerKey = Annotated[str, Field(min_length=16, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]


class Hello(_Request):
    """Set the player's name; the answer lists rulesets and bots. `player_key`: the browser's player key
    (as for `daily`): every seat this connection takes from now on is credited to its hash, for the
    archive's histories and ratings."""

    type: Literal["hello"]
    name: Annotated[str, Field(min_length=1, max_length=32)] = "Player"
    events: bool = True  # false: no `events` pushes (the client draws everything from `state`)
    player_key: PlayerKey | None = None


class Ping(_Request):
    """Liveness check."""

    type: Literal["ping"]


class ListRooms(_Request):
    """The lobby; `subscribe` asks for `lobby` pushes on every change."""

    type: Literal["list_rooms"]
    subscribe: bool = False


class SessionLength(_Message):
    """How long a session lasts: N played deals, a target balance, both, or neither (open)."""

    deals: Annotated[int, Field(ge=1, le=1000, strict=True)] | None = None
    target: Annotated[int, Field(ge=1, le=100000, strict=True)] | None = None


# Strict: `true` is not seat 1, nor 1.0 a seat (a client that sends them has a bug worth hearing of).
SeatChoice = Annotated[int, Field(ge=0, le=3, strict=True)]


#: The turn clock of a listed room (strangers) when `create_room` does not say: long enough to think
#: about a call, short enough that an absent player does not hold three others for long.
DEFAULT_TURN_SECONDS = 60.0


class CreateRoom(_Request):
    """Create a room; the creator is its host and may sit at once."""

    type: Literal["create_room"]
    ruleset: Annotated[str, Field(min_length=1, max_length=64)]
    house_rules: dict[str, Any] = Field(default_factory=dict)
    session: SessionLength = Field(default_factory=SessionLength)
    listed: bool = True
    bot: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    name: Annotated[str, Field(min_length=1, max_length=48)] | None = None
    seat: SeatChoice | Literal["any"] | None = "any"
    grace_seconds: Annotated[float, Field(ge=0, le=3600)] = 30.0
    # The turn clock: seconds a human has for each action (0: no clock). Unset: the default of the
    # room's kind (`DEFAULT_TURN_SECONDS` for a listed room, none for a private one).
    turn_seconds: Annotated[float, Field(ge=0, le=600)] | None = None

    def new_room(self) -> NewRoom:
        """The live layer's own request for this message."""
        span = SessionSpan(self.session.deals, self.session.target)
        turn = self.turn_seconds if self.turn_seconds is not None else (
            DEFAULT_TURN_SECONDS if self.listed else 0.0)
        return NewRoom(self.ruleset, dict(self.house_rules), span, self.listed, self.bot, self.name,
                       self.seat, self.grace_seconds, turn)


class Join(_Request):
    """Take a chosen seat, or the first free one when `seat` is null."""

    type: Literal["join"]
    room_id: Annotated[str, Field(min_length=1, max_length=64)]
    seat: SeatChoice | None = None


class Resume(_Request):
    """Come back to a seat (or host rights) with the token `join`/`create_room` gave."""

    type: Literal["resume"]
    room_id: Annotated[str, Field(min_length=1, max_length=64)]
    token: Annotated[str, Field(min_length=1, max_length=128)]


class Watch(_Request):
    """Enter a room as a spectator."""

    type: Literal["watch"]
    room_id: Annotated[str, Field(min_length=1, max_length=64)]


class Leave(_Request):
    """Leave the current room, giving up the seat if any."""

    type: Literal["leave"]


class AddBot(_Request):
    """Host: put a bot on an empty seat (null: the first empty one)."""

    type: Literal["add_bot"]
    seat: SeatChoice | None = None
    bot: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class RemoveBot(_Request):
    """Host: take a bot off a seat."""

    type: Literal["remove_bot"]
    seat: SeatChoice


class Start(_Request):
    """Host: start the session; bots fill the empty seats."""

    type: Literal["start"]


class Act(_Request):
    """Take an action of the deal-record vocabulary for one's own seat."""

    type: Literal["act"]
    action: Annotated[str, Field(min_length=1, max_length=64)]
    seat: SeatChoice | None = None


class Ready(_Request):
    """Ready for the next deal."""

    type: Literal["ready"]


class EndGame(_Request):
    """Host: end the session now."""

    type: Literal["end_game"]


class GetRecords(_Request):
    """The deal records of every finished deal of the session; with `room_id`, of that room (live,
    else from the archive once the live store has let it go)."""

    type: Literal["get_records"]
    room_id: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class GetState(_Request):
    """Ask for a fresh `state` push."""

    type: Literal["get_state"]


class HintRequest(_Request):
    """What the heuristic bot would do in one's seat now (from that seat's view only; logged)."""

    type: Literal["hint"]


class Daily(_Request):
    """Create and start one's own game of today's daily challenge (see server/challenge.py). The first
    game of the day of a `player_key` counts; later ones, and games without a key, are practice."""

    type: Literal["daily"]
    player_key: PlayerKey | None = None


class DailyDealResults(_Request):
    """How everyone played one deal of the day's challenge: `deal` (0-based, thrown-in deals included)
    of the asker's own daily game, which must have finished it."""

    type: Literal["daily_deal_results"]
    deal: Annotated[int, Field(ge=0, le=10_000, strict=True)]


class Leaderboard(_Request):
    """A day's daily-challenge leaderboard (`day` YYYY-MM-DD; today, UTC, by default)."""

    type: Literal["leaderboard"]
    day: Annotated[str, Field(min_length=10, max_length=10)] | None = None
    limit: Annotated[int, Field(ge=1, le=500, strict=True)] = 50


class Replay(_Request):
    """The replay viewer's frames of a deal record (stateless: any connection, no room needed)."""

    type: Literal["replay"]
    record: dict[str, Any]


class Chat(_Request):
    """A line to the room's chat: free `text` (at most 200 characters once trimmed) or a quick
    `phrase` (one of `hello`'s `chat_phrases`, which every client shows in its own language)."""

    type: Literal["chat"]
    text: Annotated[str, Field(max_length=2000)] | None = None  # checked again once trimmed and cleaned
    phrase: Annotated[str, Field(min_length=1, max_length=32)] | None = None


class MuteChat(_Request):
    """Host: mute (or unmute) a seat's chat for everyone."""

    type: Literal["mute_chat"]
    seat: SeatChoice
    muted: bool = True


class PlayAgain(_Request):
    """A seated player asks for a new session at the same table once the session is over."""

    type: Literal["play_again"]


Request = Annotated[
    Hello | Ping | ListRooms | CreateRoom | Join | Resume | Watch | Leave | AddBot | RemoveBot | Start | Act
    | Ready | EndGame | GetRecords | GetState | HintRequest | Daily | DailyDealResults | Leaderboard | Replay
    | Chat | MuteChat | PlayAgain,
    Field(discriminator="type"),
]
# The request models, read from the union above (the one place they are listed).
REQUEST_MODELS: tuple[type[_Request], ...] = get_args(get_args(Request)[0])


def message_type(model: type[_Message]) -> str:
    """The `type` a message model carries (its `Literal`)."""
    (kind,) = get_args(model.model_fields["type"].annotation)
    return str(kind)


# Derived from the models: the one list of request types.
REQUEST_TYPES = frozenset(message_type(model) for model in REQUEST_MODELS)

# ------------------------------------------------------------------------------------------- server messages


class Ok(_Message):
    """The answer to a request that succeeded."""

    type: Literal["ok"]
    id: RequestId
    result: dict[str, Any]


class Error(_Message):
    """The answer to a request that failed (or to an unreadable frame: `id` null)."""

    type: Literal["error"]
    id: RequestId | None
    code: str
    message: str


class You(_Message):
    """Who the recipient of a `state` is in the room."""

    seat: int | None
    host: bool
    spectator: bool


class SeatInfo(_Message):
    """One seat as everyone sees it (never its token)."""

    seat: int
    kind: Literal["human", "bot", "empty"]
    name: str | None
    connected: bool
    bot_playing: bool
    ready: bool


class ClockInfo(_Message):
    """Whose turn clock runs and when it runs out (Unix seconds)."""

    seat: int
    deadline: float


class RoomInfo(_Message):
    """The public facts of a room."""

    room_id: str
    name: str
    ruleset: str
    house_rules: dict[str, Any]
    listed: bool
    bot: str
    session: SessionLength
    grace_seconds: float
    turn_seconds: float = 0.0  # the turn clock of the room; 0: none
    clock: ClockInfo | None = None  # while a human's clock runs
    status: Literal["waiting", "playing", "between_deals", "over"]
    host_seat: int | None
    seats: list[SeatInfo]
    spectators: int
    deal_number: int
    played_deals: int
    balances: list[int]
    session_over: bool
    version: int
    chat_muted: list[int] = Field(default_factory=list)  # seats the host muted in the chat
    play_again: list[int] = Field(default_factory=list)  # seats that asked to play again (session over)
    daily: str | None = None  # the day of a daily-challenge room
    practice: bool = False  # a daily game that does not count (not the player key's first of the day)


class State(_Message):
    """Push: the recipient's view of the room (seat view, or the public view for a spectator)."""

    type: Literal["state"]
    room_id: str
    you: You
    room: RoomInfo
    view: dict[str, Any] | None


class Events(_Message):
    """Push: public events in order."""

    type: Literal["events"]
    room_id: str
    deal_number: int
    events: list[dict[str, Any]]


class LobbyEntry(_Message):
    """One room of the lobby."""

    room_id: str
    name: str
    ruleset: str
    status: str
    humans: int
    free_seats: int
    spectators: int
    session: SessionLength
    created_at: float


class Lobby(_Message):
    """Push: the whole lobby list."""

    type: Literal["lobby"]
    rooms: list[LobbyEntry]


class ChatFrom(_Message):
    """Who said a chat line: their seat (None: a spectator) and name."""

    seat: int | None
    name: str


class ChatLine(_Message):
    """One chat line: text, or a quick phrase's key; `at` in Unix seconds."""

    from_: ChatFrom = Field(alias="from")
    text: str | None = None
    phrase: str | None = None
    at: float


class ChatPush(_Message):
    """Push: chat lines of the room (one line as it is said; the kept ones on entering a room)."""

    type: Literal["chat"]
    room_id: str
    lines: list[ChatLine]


ServerMessage = Annotated[Ok | Error | State | Events | Lobby | ChatPush, Field(discriminator="type")]
SERVER_MODELS: tuple[type[_Message], ...] = get_args(get_args(ServerMessage)[0])
REQUEST_ADAPTER: TypeAdapter[Request] = TypeAdapter(Request)
SERVER_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


class _EitherWay:
    """Validates a message of either direction. One `type` may name a request and a push (`chat`:
    the line a client sends, the lines the room gets): a request is the one that carries an `id`."""

    def validate_python(self, data: Any) -> Request | ServerMessage:
        """The request or server message `data` is; pydantic's ValidationError otherwise."""
        if isinstance(data, dict) and "id" in data and data.get("type") in REQUEST_TYPES:
            return REQUEST_ADAPTER.validate_python(data)
        return SERVER_ADAPTER.validate_python(data)


MESSAGE_ADAPTER = _EitherWay()

class HouseRuleInfo(_Message):
    """One house rule as `hello` describes it (the lobby's create-room form shows these)."""

    name: str
    default: Any
    description: str
    choices: list[Any]


class RulesetInfo(_Message):
    """One ruleset as `hello` describes it: its title, house rules and the deal's packets (clients
    re-deal a finished deal from its seed with them: docs/deal-record.md, "Checking a deal by hand")."""

    title: str
    house_rules: list[HouseRuleInfo]
    packets: list[int]


def ruleset_info() -> dict[str, Any]:
    """The `ruleset_info` of `hello`'s answer: ruleset name -> title, house rules and packets, from the rules
    engine's own summary (`Ruleset.describe()`)."""
    info: dict[str, Any] = {}
    for name in ruleset_names():
        summary = get_ruleset(name).describe()
        rules = [HouseRuleInfo.model_validate({key: rule[key] for key in ("name", "default", "description",
                                                                           "choices")})
                 for rule in summary["house_rules"]]
        info[name] = RulesetInfo(title=str(summary["title"]), house_rules=rules,
                                 packets=summary["packets"]).model_dump()
    return info


# ------------------------------------------------------------------------------------------- frames


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _utf8_clean(data: Any) -> bool:
    """Whether every string of a decoded JSON value is encodable text (no lone surrogate)."""
    try:
        json.dumps(data, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return False
    return True


def decode_frame(frame: str | bytes, max_bytes: int = MAX_FRAME_BYTES) -> dict[str, Any]:
    """Bytes or text to a message object (not yet validated); raises `ProtocolError`."""
    if len(frame) > max_bytes:
        raise ProtocolError("frame_too_large", f"frame of {len(frame)} bytes is over the limit of "
                            f"{max_bytes} bytes ({max_bytes / 1024:g} KiB)")
    data: Any
    if isinstance(frame, str):
        try:
            data = json.loads(frame)
        except (ValueError, RecursionError) as error:
            raise ProtocolError("bad_json", f"text frame is not valid JSON: {error}") from None
        if not isinstance(data, dict):
            raise ProtocolError("bad_json", f"a message is a JSON object, not {type(data).__name__}")
        if _SURROGATE_ESCAPE.search(frame) and not _utf8_clean(data):
            # `"\ud800"` alone is valid JSON but no text: echoed in an answer (an id, a field name) it
            # would make the answer unsendable.
            raise ProtocolError("bad_json", "text frame holds a lone surrogate escape (\\uD800-\\uDFFF): "
                                "not Unicode text")
    else:
        try:
            data = msgpack.unpackb(frame, raw=False, strict_map_key=True)
        except Exception as error:  # msgpack raises several unrelated types for bad input
            # Some msgpack errors carry no text (FormatError): name the error so the message never
            # ends at the colon.
            detail = str(error).strip() or f"{type(error).__name__} (a byte no msgpack value starts with)"
            raise ProtocolError("bad_msgpack", f"binary frame is not valid msgpack: {detail}") from None
        if not isinstance(data, dict):
            raise ProtocolError("bad_msgpack", f"a message is a msgpack map, not {type(data).__name__}")
    return data


def request_id_of(data: Any) -> RequestId | None:
    """The `id` of a decoded message, if it has a usable one (an int or a string)."""
    raw_id = data.get("id") if isinstance(data, dict) else None
    return raw_id if isinstance(raw_id, int | str) and not isinstance(raw_id, bool) else None


def peek_request_id(frame: str | bytes) -> RequestId | None:
    """The `id` of a frame, or None when it has none or cannot be read (for answering a frame that is
    refused before it is handled, e.g. `rate_limited`)."""
    try:
        return request_id_of(decode_frame(frame))
    except ProtocolError:
        return None


def parse_request(data: dict[str, Any]) -> Request:
    """Validate a decoded object as a request; raises `ProtocolError` naming the problem."""
    request_id = request_id_of(data)
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in REQUEST_TYPES:
        shown = "missing" if kind is None else repr(kind)
        raise ProtocolError("unknown_type", f"unknown message type {shown}; expected one of "
                            f"{', '.join(sorted(REQUEST_TYPES))}", request_id)
    try:
        return REQUEST_ADAPTER.validate_python(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc'][1:]) or 'message'}: {issue['msg']}"
            for issue in error.errors(include_url=False)
        )
        raise ProtocolError("invalid_message", f"invalid {kind!r} message: {problems}", request_id) from None


def encode_frame(message: dict[str, Any], binary: bool) -> str | bytes:
    """A message object as a frame: msgpack bytes when `binary`, else JSON text."""
    if binary:
        packed: bytes = _PACKER.pack(message)
        return packed
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


# One packer for every frame (`packb` makes a new one, with a fresh buffer, per call); frames are
# encoded on the event loop's thread only. It resets itself after each `pack`.
_PACKER = msgpack.Packer(use_bin_type=True)


def ok(request_id: RequestId, result: dict[str, Any] | None = None) -> dict[str, Any]:
    """An `ok` answer as a message object."""
    return {"type": "ok", "id": request_id, "result": result or {}}


def error(request_id: RequestId | None, code: str, message: str) -> dict[str, Any]:
    """An `error` answer as a message object."""
    return {"type": "error", "id": request_id, "code": code, "message": message}
