"""Table chat over real websockets: players' lines reach everyone, spectators' lines only spectators,
text arrives as typed, the limits answer with their codes, the host's mute, the kept lines come back
on entering the room, and lines cross to connections on another server."""

from __future__ import annotations

import pytest
from server_helpers import Connect

from server.client import ServerError, WhistClient
from server.table.chat import KEEP_LINES, PHRASES


async def seated_room(connect: Connect) -> tuple[WhistClient, WhistClient, WhistClient, str]:
    """Ann (host, seat 0), Bob (seat 1) and a spectator in one room."""
    ann, bob, rail = await connect("Ann"), await connect("Bob"), await connect("Rail")
    await ann.create_room("whist", seat=0, listed=False)
    assert ann.room_id is not None
    await bob.join(ann.room_id, 1)
    await rail.watch(ann.room_id)
    return ann, bob, rail, ann.room_id


def texts(client: WhistClient) -> list[str | None]:
    return [line.get("text") or line.get("phrase") for line in client.chat]


async def test_a_players_line_reaches_everyone_and_cards_stay_text(connect: Connect) -> None:
    ann, bob, rail, _ = await seated_room(connect)
    for line in ("AS KH QD", "<img src=x onerror=alert(1)>"):
        await bob.say(line)
        for client in (ann, bob, rail):
            await client.wait_for(lambda c, line=line: line in texts(c))
    said = next(line for line in ann.chat if line.get("text") == "AS KH QD")
    assert said["from"] == {"seat": 1, "name": "Bob"} and "audience" not in said


async def test_a_spectators_line_reaches_no_seat(connect: Connect) -> None:
    ann, bob, rail, room_id = await seated_room(connect)
    other = await connect("Other rail")
    await other.watch(room_id)
    await rail.say("play the ace!")
    await other.wait_for(lambda c: "play the ace!" in texts(c))
    await bob.say("marker")  # pushed after the rail's line: once it arrives, the rail's would have
    for seat in (ann, bob):
        await seat.wait_for(lambda c: "marker" in texts(c))
        assert "play the ace!" not in texts(seat)


async def test_quick_phrases_limits_and_their_codes(connect: Connect) -> None:
    ann, bob, _, _ = await seated_room(connect)
    hello = await (await connect(None)).request("hello", name="Zed")
    assert hello["chat_phrases"] == list(PHRASES)
    await ann.say(phrase="good_luck")
    await bob.wait_for(lambda c: "good_luck" in texts(c))
    cases = ({"text": "x" * 201}, {"text": " \x00 "}, {"phrase": "nonsense"}, {})
    codes = []
    for fields in cases:
        with pytest.raises(ServerError) as caught:
            await ann.request("chat", **fields)
        codes.append(caught.value.code)
    assert codes == ["chat_too_long", "chat_empty", "malformed_chat", "malformed_chat"]
    await ann.say("y" * 200)  # exactly the limit passes
    with pytest.raises(ServerError) as caught:
        for n in range(20):
            await bob.say(f"flood {n}")
    assert caught.value.code == "rate_limited"
    assert ann.websocket.close_code is None and bob.websocket.close_code is None, "connections stay up"


async def test_the_host_mutes_a_seat_for_everyone(connect: Connect) -> None:
    ann, bob, _, _ = await seated_room(connect)
    with pytest.raises(ServerError) as caught:
        await bob.mute_chat(0)
    assert caught.value.code == "not_host"
    await ann.mute_chat(1)
    with pytest.raises(ServerError) as caught:
        await bob.say("can anyone hear me")
    assert caught.value.code == "chat_muted"
    await ann.mute_chat(1, muted=False)
    await bob.say("back")
    await ann.wait_for(lambda c: "back" in texts(c))


async def test_entering_the_room_replays_the_kept_lines_it_may_read(connect: Connect) -> None:
    ann, bob, rail, room_id = await seated_room(connect)
    await rail.say("from the rail")
    for n in range(3):
        await ann.say(f"line {n}")
    late_seat, late_rail = await connect("Late"), await connect("Late rail")
    await late_seat.join(room_id, 2)
    await late_rail.watch(room_id)
    await late_seat.wait_for(lambda c: "line 2" in texts(c))
    assert texts(late_seat) == ["line 0", "line 1", "line 2"]
    await late_rail.wait_for(lambda c: "line 2" in texts(c))
    assert texts(late_rail) == ["from the rail", "line 0", "line 1", "line 2"]
    assert bob.token is not None
    reloaded = await connect("Bob again")
    await reloaded.resume(room_id, bob.token)  # a reload of the page
    await reloaded.wait_for(lambda c: "line 2" in texts(c))
    assert texts(reloaded) == ["line 0", "line 1", "line 2"]


async def test_only_the_last_lines_are_kept(connect: Connect) -> None:
    _, _, _, room_id = await seated_room(connect)
    said = 0
    while said < KEEP_LINES + 3:  # several spectators: each has its own rate limit
        rail = await connect(f"Rail {said}")
        await rail.watch(room_id)
        for _ in range(5):
            await rail.say(f"n{said}")
            said += 1
    late = await connect("Late")
    await late.watch(room_id)
    await late.wait_for(lambda c: bool(c.chat))
    assert len(late.chat) == KEEP_LINES and texts(late)[-1] == f"n{said - 1}"
    assert texts(late)[0] == f"n{said - KEEP_LINES}"
