"""The stateless `replay` request (docs/protocol.md): a deal record in, the replay viewer's frames out;
a record that does not replay gets `bad_record` with the engine's reason, and the connection stays up."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Connect

from server.client import ServerError
from server.rules import replay

RECORDS = Path(__file__).resolve().parents[1] / "rules" / "records"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((RECORDS / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("binary", [False, True])
async def test_a_record_replays_into_frames_without_a_room(connect: Connect, binary: bool) -> None:
    client = await connect("Viewer", binary=binary)
    record = load("couleur/emballage_made.json")
    answer = await client.replay(record)
    assert len(answer["steps"]) == len(record["actions"]) + 1
    assert answer["result"] == replay(record).result()
    assert answer["steps"][-1]["tricks_won"] == answer["result"]["tricks"]


async def test_an_illegal_record_gets_bad_record_with_the_engine_reason(connect: Connect) -> None:
    client = await connect("Viewer")
    record = load("couleur/illegal_solo_first_call.json")
    with pytest.raises(ServerError) as caught:
        await client.replay(record)
    assert caught.value.code == "bad_record"
    assert "illegal_action" in str(caught.value)
    # The connection is still up and serves the next request.
    assert (await client.replay(load("solo-whist/solo.json")))["result"]["status"] == "complete"


@pytest.mark.parametrize("record", [{}, {"ruleset": "couleur", "dealer": 0, "hands": "AS", "actions": []}])
async def test_a_malformed_record_gets_bad_record(connect: Connect, record: dict[str, Any]) -> None:
    client = await connect("Viewer")
    with pytest.raises(ServerError) as caught:
        await client.replay(record)
    assert caught.value.code == "bad_record"


async def test_a_record_that_is_not_an_object_is_an_invalid_message(connect: Connect) -> None:
    client = await connect("Viewer")
    answer = await client.request_raw({"type": "replay", "id": 5, "record": "AS KS"})
    assert answer["type"] == "error" and answer["code"] == "invalid_message"
