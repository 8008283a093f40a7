"""Table requests over real websockets: `hint`, `hello`'s ruleset metadata, and small protocol fixes
(`player_returned` pushed, `rate_limited` answers carry the request's id, `bad_msgpack` explains
itself, every command-line option documented)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from server_helpers import Connect, LiveServer, random_choice

from server.client import ServerError, WhistClient
from server.protocol import ruleset_info
from server.rules import get_ruleset, ruleset_names
from server.settings import Limits, ServerSettings, flag_of, setting_fields

ROOT = Path(__file__).resolve().parents[2]


async def solo_table(connect: Connect, **options: object) -> WhistClient:
    """A started room: the client on seat 0, random bots on the others."""
    client = await connect("Ann")
    await client.create_room("solo-whist", seat=0, bot="random", session={"deals": 1}, **options)
    await client.start()
    await client.wait_for(lambda c: c.view is not None)
    return client


async def test_hello_sends_each_rulesets_title_and_house_rules(connect: Connect) -> None:
    client = await connect(None)
    result = await client.request("hello", name="Ann")
    info = result["ruleset_info"]
    assert sorted(info) == sorted(result["rulesets"]) == sorted(ruleset_names())
    for name in ruleset_names():
        rules = get_ruleset(name).house_rules
        assert [rule["name"] for rule in info[name]["house_rules"]] == list(rules)
        for rule in info[name]["house_rules"]:
            assert rule["default"] == rules[rule["name"]].default and rule["description"]
            assert rule["choices"] == list(rules[rule["name"]].choices)
        assert info[name]["title"] == get_ruleset(name).title
        assert info[name]["packets"] == list(get_ruleset(name).packets)
    assert info == ruleset_info()
    assert "bots" in result and "rulesets" in result  # the older keys stay


async def test_a_hint_is_a_legal_action_of_ones_seat_and_is_marked_on_the_record(connect: Connect) -> None:
    client = await solo_table(connect)
    watcher = await connect("Watcher")
    assert client.room_id is not None
    await watcher.watch(client.room_id)
    await client.wait_for(lambda c: c.my_turn())
    assert client.view is not None
    actions_before = len(client.view["calls"]) + sum(len(t["cards"]) for t in client.view["tricks"])
    answer = await client.request("hint")
    assert answer["bot"] == "heuristic" and answer["action"] in client.view["legal"]
    with pytest.raises(ServerError) as spectator:
        await watcher.request("hint")
    assert spectator.value.code == "spectator_cannot_act"
    await client.play_deal(random_choice)
    (record,) = await client.records()
    (hint,) = record["hints"]
    assert hint[0] == 0 and record["actions"][hint[1]][0] == 0
    assert hint[1] >= actions_before


async def test_no_hint_once_the_deal_is_over(connect: Connect) -> None:
    client = await solo_table(connect)
    await client.play_deal(random_choice)
    with pytest.raises(ServerError) as over:
        await client.request("hint")
    assert over.value.code == "session_over"  # a one-deal session: over with its deal


async def test_a_daily_game_gives_no_hints(connect: Connect) -> None:
    client = await connect("Ann")
    await client.request("daily")
    await client.wait_for(lambda c: c.my_turn())
    with pytest.raises(ServerError) as refused:
        await client.request("hint")
    assert refused.value.code == "hints_off"


async def test_a_player_back_after_a_bot_took_over_is_announced(connect: Connect) -> None:
    # `player_returned` was documented but never pushed.
    client = await solo_table(connect, grace_seconds=0)
    room_id, token = client.room_id, client.token
    assert room_id is not None and token is not None
    watcher = await connect("Watcher")
    await watcher.watch(room_id)
    await client.close()
    await watcher.wait_for(lambda c: c.room is not None and c.room["seats"][0]["bot_playing"])
    back = await connect("Ann")
    await back.resume(room_id, token)
    await watcher.wait_for(lambda c: {"type": "player_returned", "seat": 0} in c.events)
    await back.wait_for(lambda c: c.room is not None and not c.room["seats"][0]["bot_playing"])


async def test_a_rate_limited_request_is_answered_with_its_own_id(connect: Connect, live: LiveServer) -> None:
    # `rate_limited` errors carried `id: null`.
    live.server.limits = Limits(0.5, 1.0)
    client = await connect(None)
    answers = await asyncio.gather(*(client.request_raw({"type": "ping", "id": f"p{n}"}) for n in range(3)))
    limited = [answer for answer in answers if answer["type"] == "error"]
    assert limited and all(answer["code"] == "rate_limited" for answer in limited)
    assert sorted(answer["id"] for answer in answers) == ["p0", "p1", "p2"]


async def test_bad_msgpack_says_what_is_wrong(connect: Connect) -> None:
    # The message stopped at the colon for errors without text.
    client = await connect(None)
    await client.send_raw(b"\xc1")
    answer = await asyncio.wait_for(client.unmatched.get(), 10)
    assert answer["code"] == "bad_msgpack"
    assert re.search(r": \S", answer["message"]) and not answer["message"].rstrip().endswith(":")


def test_every_command_line_option_is_in_the_protocol_docs_options_table() -> None:
    # `--loop` and `--compression` were once missing. The flags are generated from server/settings.py.
    flags = {flag_of(item) for item in setting_fields(ServerSettings) + setting_fields(Limits)}
    table = (ROOT / "docs" / "protocol.md").read_text().split("| flag | default | meaning |", 1)[1]
    assert {"--loop", "--compression", "--store", "--max-strikes"} <= flags
    assert sorted(flag for flag in flags if f"| `{flag}` |" not in table) == []
