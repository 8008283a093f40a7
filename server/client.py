"""A Python client of the live protocol (docs/protocol.md): for tests, the load benchmark and bots
that connect from outside.

    async with await WhistClient.connect("ws://127.0.0.1:8765/ws", name="Alice") as client:
        room = await client.create_room("solo-whist", seat=0, session={"deals": 1})
        await client.start()
        await client.play_until_session_over(get_bot("random"))
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import secrets
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import msgpack  # type: ignore[import-untyped]
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

JSON = dict[str, Any]


def _view_replaced(client: WhistClient, seen: JSON) -> bool:
    return client.view is not seen


class ServerError(Exception):
    """The server answered a request with `error`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def room_url(url: str, room_id: str) -> str:
    """The websocket URL that names its room (`/ws?room=<id>`): behind the balancer, the connections
    of one room then reach the same replica (docs/scaling.md, "Room affinity")."""
    parts = urlsplit(url)
    query = [(key, value) for key, value in parse_qsl(parts.query) if key != "room"] + [("room", room_id)]
    return urlunsplit(parts._replace(query=urlencode(query)))


class WhistClient:
    """One connection. Keeps the latest `state`, every event and every frame received."""

    def __init__(
        self, websocket: ClientConnection, binary: bool = False, player_key: str | None = None
    ) -> None:
        self.websocket = websocket
        self.binary = binary
        self.ids = itertools.count(1)
        self.pending: dict[int | str, asyncio.Future[JSON]] = {}
        self.unmatched: asyncio.Queue[JSON] = asyncio.Queue()  # answers with an unknown or null id
        self.received: list[JSON] = []  # every message, in order (tests inspect them)
        self.received_at: list[float] = []
        self.state: JSON | None = None
        self.events: list[JSON] = []
        self.lobby: list[JSON] | None = None
        self.chat: list[JSON] = []  # the room's chat lines this connection was sent, in order
        self.room_id: str | None = None
        self.token: str | None = None
        self.seat: int | None = None
        # The player key the daily challenge counts games by (a browser keeps one in localStorage).
        self.player_key = player_key or secrets.token_urlsafe(24)
        self._changed = asyncio.Event()
        self._reader = asyncio.get_running_loop().create_task(self._read_loop())
        self.closed = asyncio.Event()

    @classmethod
    async def connect(
        cls, url: str, *, name: str | None = None, binary: bool = False, events: bool = True,
        player_key: str | None = None,
    ) -> WhistClient:
        """Open a connection (and send `hello` when `name` is given; `events=False` asks for no
        `events` pushes, only `state`). `player_key`: the player key (given, `hello` names it: the
        seats this client takes are credited to it; default: a new random one per client, for the daily
        challenge only)."""
        websocket = await connect(url, max_size=8 * 1024 * 1024, open_timeout=10)
        client = cls(websocket, binary, player_key)
        if name is not None:
            # A key given here is the player's: `hello` names it, and every seat taken is credited to it.
            credit: JSON = {"player_key": player_key} if player_key is not None else {}
            await client.request("hello", name=name, events=events, **credit)
        return client

    async def __aenter__(self) -> WhistClient:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, value: BaseException | None,
                        traceback: TracebackType | None) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the connection."""
        await self.websocket.close()
        self._reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._reader

    # ---------------------------------------------------------------- frames

    def encode(self, message: JSON) -> str | bytes:
        """A message as a frame in this client's encoding."""
        if self.binary:
            packed: bytes = msgpack.packb(message, use_bin_type=True)
            return packed
        return json.dumps(message)

    async def _read_loop(self) -> None:
        try:
            async for frame in self.websocket:
                message: JSON = (msgpack.unpackb(frame, raw=False) if isinstance(frame, bytes)
                                 else json.loads(frame))
                self.received.append(message)
                self.received_at.append(time.perf_counter())
                self._handle(message)
        except ConnectionClosed:
            pass
        finally:
            self.closed.set()
            for future in self.pending.values():
                if not future.done():
                    future.set_exception(ConnectionError("connection closed"))
            self._notify()

    def _handle(self, message: JSON) -> None:
        kind = message.get("type")
        if kind in ("ok", "error"):
            request_id = message.get("id")
            future = self.pending.pop(request_id, None) if isinstance(request_id, int | str) else None
            if future is not None and not future.done():
                future.set_result(message)
            else:
                self.unmatched.put_nowait(message)
        elif kind == "state":
            self.state = message
            self.room_id = message["room_id"]
            self.seat = message["you"]["seat"]
        elif kind == "events":
            self.events.extend(message["events"])
        elif kind == "lobby":
            self.lobby = message["rooms"]
        elif kind == "chat":
            self.chat.extend(message["lines"])
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def send_raw(self, frame: str | bytes) -> None:
        """Send a frame as is (for tests of bad input)."""
        await self.websocket.send(frame)

    async def request_raw(self, message: JSON, timeout: float = 10.0) -> JSON:
        """Send a message and return the `ok`/`error` answer itself (no exception on `error`)."""
        request_id = message.get("id")
        if request_id is None or isinstance(request_id, bool) or not isinstance(request_id, int | str):
            await self.send_raw(self.encode(message))
            return await asyncio.wait_for(self.unmatched.get(), timeout)
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self.pending[request_id] = future
        await self.send_raw(self.encode(message))
        return await asyncio.wait_for(future, timeout)

    async def request(self, kind: str, timeout: float = 10.0, **fields: Any) -> JSON:
        """Send a request; return its `result`, or raise `ServerError`."""
        answer = await self.request_raw({"type": kind, "id": next(self.ids), **fields}, timeout)
        if answer["type"] == "error":
            raise ServerError(answer["code"], answer["message"])
        result: JSON = answer["result"]
        return result

    # ---------------------------------------------------------------- waiting

    async def wait_for(self, predicate: Callable[[WhistClient], bool], timeout: float = 30.0) -> None:
        """Wait until `predicate(self)` holds (checked after every message)."""
        deadline = time.monotonic() + timeout
        while not predicate(self):
            if self.closed.is_set():
                raise ConnectionError("connection closed while waiting")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("condition not reached in time")
            event = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)

    @property
    def view(self) -> JSON | None:
        """The latest view (None before the start)."""
        return self.state["view"] if self.state is not None else None

    @property
    def room(self) -> JSON | None:
        """The latest room info."""
        return self.state["room"] if self.state is not None else None

    def my_turn(self) -> bool:
        """Whether the latest view asks this seat to act."""
        view = self.view
        return bool(view and view["seat"] is not None and view["seat"] in view["to_act"] and view["legal"])

    # ---------------------------------------------------------------- requests

    async def daily(self) -> JSON:
        """`daily` with this client's player key; remembers the room and token."""
        result = await self.request("daily", player_key=self.player_key)
        self.room_id, self.token, self.seat = result["room_id"], result["token"], result["seat"]
        return result

    async def daily_deal_results(self, deal: int) -> JSON:
        """`daily_deal_results`: how everyone played deal `deal` of this client's daily game."""
        return await self.request("daily_deal_results", deal=deal)

    async def create_room(self, ruleset: str, **options: Any) -> JSON:
        """`create_room`; remembers the room and token."""
        result = await self.request("create_room", ruleset=ruleset, **options)
        self.room_id, self.token, self.seat = result["room_id"], result["token"], result["seat"]
        return result

    async def join(self, room_id: str, seat: int | None = None) -> JSON:
        """`join`; remembers the token."""
        result = await self.request("join", room_id=room_id, seat=seat)
        self.room_id, self.token, self.seat = room_id, result["token"], result["seat"]
        return result

    async def resume(self, room_id: str, token: str) -> JSON:
        """`resume` with a token."""
        result = await self.request("resume", room_id=room_id, token=token)
        self.room_id, self.token, self.seat = room_id, token, result["seat"]
        return result

    async def watch(self, room_id: str) -> JSON:
        """`watch` as a spectator."""
        result = await self.request("watch", room_id=room_id)
        self.room_id, self.seat = room_id, None
        return result

    async def start(self) -> JSON:
        """`start` (host)."""
        return await self.request("start")

    async def act(self, action: str) -> JSON:
        """`act` for this connection's seat."""
        return await self.request("act", action=action)

    async def ready(self) -> JSON:
        """`ready` for the next deal."""
        return await self.request("ready")

    async def say(self, text: str | None = None, phrase: str | None = None) -> JSON:
        """`chat`: a line to the room (free `text` or a quick `phrase` key)."""
        fields: dict[str, Any] = {"text": text} if text is not None else {}
        if phrase is not None:
            fields["phrase"] = phrase
        return await self.request("chat", **fields)

    async def mute_chat(self, seat: int, muted: bool = True) -> JSON:
        """`mute_chat` (host): mute or unmute a seat's chat for everyone."""
        return await self.request("mute_chat", seat=seat, muted=muted)

    async def play_again(self) -> JSON:
        """`play_again`: ask for a new session at this table (it starts once every seated human asks)."""
        return await self.request("play_again")

    async def hint(self) -> str:
        """`hint`: the action the server's heuristic bot would take in this seat now."""
        result = await self.request("hint")
        return str(result["action"])

    async def records(self, room_id: str | None = None) -> list[JSON]:
        """The deal records of the finished deals (of this room, or of `room_id`: live or archived)."""
        which: JSON = {"room_id": room_id} if room_id else {}
        result = await self.request("get_records", **which)
        records: list[JSON] = result["records"]
        return records

    async def replay(self, record: JSON) -> JSON:
        """The replay viewer's frames of a deal record: `{"steps": [...], "result": {...}}`."""
        return await self.request("replay", record=record)

    # ---------------------------------------------------------------- playing

    async def play_deal(self, choose: Callable[[JSON], str], timeout: float = 120.0) -> JSON:
        """Play this seat until the current deal ends; returns the final view."""
        deadline = time.monotonic() + timeout

        def left() -> float:
            return max(0.1, deadline - time.monotonic())

        def turn_or_end(client: WhistClient) -> bool:
            view = client.view
            return view is not None and (client.my_turn() or view["phase"] == "end")

        while True:
            await self.wait_for(turn_or_end, left())
            view = self.view
            assert view is not None
            if view["phase"] == "end":
                return view
            try:
                await self.act(choose(view))
            except ServerError as problem:
                if problem.code != "not_your_turn":  # a stale view: wait for the next state
                    raise
            # Wait for a state after our action (it usually arrives before the `ok`).
            await self.wait_for(functools.partial(_view_replaced, seen=view), left())

    async def play_until_session_over(self, bot: Any, timeout: float = 600.0) -> JSON:
        """Play deal after deal with `bot` choosing, sending `ready` between deals; returns the room."""
        deadline = time.monotonic() + timeout
        number = 0

        def choose(view: JSON) -> str:
            return str(bot.decide(view, f"client:{view['seat']}:{number}:{len(view['calls'])}", 20.0))

        while True:
            await self.play_deal(choose, max(0.1, deadline - time.monotonic()))
            room = self.room
            assert room is not None
            if room["session_over"]:
                return room
            number += 1
            deal_number = int(room["deal_number"])

            def next_deal(client: WhistClient, seen: int = deal_number) -> bool:
                info = client.room
                return info is not None and (info["deal_number"] > seen or bool(info["session_over"]))

            with contextlib.suppress(ServerError):
                await self.ready()
            await self.wait_for(next_deal, max(0.1, deadline - time.monotonic()))


async def run_bot(url: str, room_id: str | None, seat: int | None, bot_name: str, name: str,
                  ruleset: str, deals: int) -> JSON:
    """Connect a bot from outside: join `room_id` (or create a room and start it) and play until the
    session is over. Returns the final room info."""
    from .bots import get_bot

    bot = get_bot(bot_name)
    if room_id is not None:
        url = room_url(url, room_id)
    async with await WhistClient.connect(url, name=name, events=False) as client:
        if room_id is None:
            await client.create_room(ruleset, seat=0 if seat is None else seat, session={"deals": deals})
            await client.start()
        else:
            await client.join(room_id, seat)
        return await client.play_until_session_over(bot, timeout=24 * 3600)


def main(argv: list[str] | None = None) -> int:
    """`python -m server.client ws://HOST:PORT/ws [--room ID] [--seat N] [--bot NAME]`: a bot that
    connects from outside and plays a seat; prints the final balances as JSON."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m server.client", description=main.__doc__)
    parser.add_argument("url", help="the server's websocket URL, e.g. ws://127.0.0.1:8765/ws")
    parser.add_argument("--room", help="room to join (default: create one and start it with bots)")
    parser.add_argument("--seat", type=int, choices=range(4), help="seat to take (default: first free)")
    parser.add_argument("--bot", default="random", help="bot that chooses the actions (default random)")
    parser.add_argument("--name", default="Remote bot")
    parser.add_argument("--ruleset", default="solo-whist", help="for a created room")
    parser.add_argument("--deals", type=int, default=1, help="session length of a created room")
    args = parser.parse_args(argv)
    room = asyncio.run(run_bot(args.url, args.room, args.seat, args.bot, args.name, args.ruleset, args.deals))
    print(json.dumps({"room_id": room["room_id"], "balances": room["balances"],
                      "played_deals": room["played_deals"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
