"""A client written only from docs/protocol.md ("A complete game, step by step"), with raw JSON frames
and no helper from the server package: it must be able to play full deals, and to join others."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from server_helpers import LiveServer
from websockets.asyncio.client import ClientConnection, connect


class DocClient:
    """Follows the document: requests with ids, answers matched by id, `state` pushes drive play."""

    def __init__(self, websocket: ClientConnection) -> None:
        self.websocket = websocket
        self.next_id = 0
        self.state: dict[str, Any] | None = None

    async def call(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.next_id += 1
        await self.websocket.send(json.dumps({"type": kind, "id": self.next_id, **fields}))
        while True:
            message = json.loads(await self.websocket.recv())
            if message["type"] == "state":
                self.state = message
            elif message["type"] in ("ok", "error") and message["id"] == self.next_id:
                return message

    async def next_state(self) -> dict[str, Any]:
        while True:
            message = json.loads(await self.websocket.recv())
            if message["type"] == "state":
                self.state = message
                return message

    async def play(self) -> dict[str, Any]:
        """Step 3 and 4 of the document, until the session is over."""
        state = self.state or await self.next_state()
        while True:
            view, room = state["view"], state["room"]
            if view is not None and view["phase"] == "end":
                if room["session_over"]:
                    return state
                if not room["seats"][view["seat"]]["ready"]:
                    answer = await self.call("ready")
                    assert answer["type"] == "ok", answer
            elif view is not None and view["seat"] in view["to_act"] and view["legal"]:
                answer = await self.call("act", action=view["legal"][-1])
                assert answer["type"] == "ok" or answer["code"] == "not_your_turn", answer
            state = await self.next_state() if self.state is state else self.state


async def test_a_client_written_from_the_document_plays_a_session(live: LiveServer) -> None:
    async with connect(live.url) as websocket:
        client = DocClient(websocket)
        assert (await client.call("hello", name="Doc"))["type"] == "ok"
        created = await client.call("create_room", ruleset="solo-whist", seat=0, session={"deals": 2},
                                    bot="random")
        assert created["type"] == "ok" and created["result"]["seat"] == 0
        assert (await client.call("start"))["type"] == "ok"
        final = await asyncio.wait_for(client.play(), 120)
        assert final["room"]["played_deals"] == 2 and final["view"]["result"] is not None
        records = await client.call("get_records")
        assert len(records["result"]["records"]) >= 2


async def test_four_document_clients_share_a_table(live: LiveServer) -> None:
    sockets = [await connect(live.url) for _ in range(4)]
    try:
        clients = [DocClient(websocket) for websocket in sockets]
        created = await clients[0].call("create_room", ruleset="solo-whist", session={"deals": 1})
        room_id = created["result"]["room_id"]
        for client in clients[1:]:
            joined = await client.call("join", room_id=room_id)
            assert joined["type"] == "ok", joined
        assert (await clients[0].call("start"))["type"] == "ok"
        finals = await asyncio.wait_for(asyncio.gather(*(client.play() for client in clients)), 120)
        assert len({json.dumps(final["view"]["result"]) for final in finals}) == 1
    finally:
        for websocket in sockets:
            await websocket.close()
