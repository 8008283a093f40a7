"""The outbox (server/live/outbox.py): every push to a room's connections goes through the
per-recipient filter: a seat gets its own view, a spectator the public one, an `events` message that
names a card hidden from the recipient is dropped (and logged), and one broadcast builds one view per
seat, whatever the number of connections."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from live_units import HOST_TOKEN, started, stored_room, waiting_table
from shared_peers import Peer

from server.live import LiveRoom, Outbox, filter_for_recipient
from server.rules import views as seat_views
from server.rules import visibility
from server.table import hash_token


async def room_with(outbox: Outbox) -> LiveRoom:
    """A started room (the host at seat 0, bots elsewhere) whose only listener is `outbox`."""
    return await stored_room(started(waiting_table()), [outbox])


def states(peer: Peer) -> list[dict[str, Any]]:
    return [message for message in peer.pushed if message["type"] == "state"]


def events(peer: Peer) -> list[dict[str, Any]]:
    return [message for message in peer.pushed if message["type"] == "events"]


async def test_a_seat_gets_its_own_view_and_a_spectator_the_public_one() -> None:
    outbox = Outbox()
    room = await room_with(outbox)
    player, spectator = Peer("Ann"), Peer("Watcher")
    await room.admit(player, hash_token(HOST_TOKEN))
    await room.admit(spectator, None)
    deal = room.table.session.deal  # type: ignore[union-attr]

    player_state, spectator_state = states(player)[-1], states(spectator)[-1]
    assert player_state["you"] == {"seat": 0, "host": True, "spectator": False}
    assert player_state["view"] == deal.view(0)
    assert sorted(player_state["view"]["hand"]) == sorted(deal.hands[0])
    assert spectator_state["you"] == {"seat": None, "host": False, "spectator": True}
    assert spectator_state["view"] == deal.view(None)
    assert not visibility.mentions(spectator_state["view"], visibility.hidden_cards(deal, None))


async def test_an_events_message_naming_a_hidden_card_is_dropped_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    outbox = Outbox()
    room = await room_with(outbox)
    player, spectator = Peer("Ann"), Peer("Watcher")
    await room.admit(player, hash_token(HOST_TOKEN))
    await room.admit(spectator, None)
    deal = room.table.session.deal  # type: ignore[union-attr]
    own_card, other_card = sorted(deal.hands[0])[0], sorted(deal.hands[1])[0]
    player.pushed.clear()
    spectator.pushed.clear()

    with caplog.at_level(logging.ERROR, logger="whist.rooms"):
        outbox.broadcast(room, [{"type": "note", "card": own_card}])
    assert [message["events"] for message in events(player)] == [[{"type": "note", "card": own_card}]]
    assert events(spectator) == [], "seat 0's card is hidden from a spectator"
    assert len(states(player)) == len(states(spectator)) == 1, "the state goes out anyway"
    assert "names a hidden card" in caplog.text

    player.pushed.clear()
    outbox.broadcast(room, [{"type": "note", "text": f"play {other_card}"}])
    assert events(player) == [], "seat 1's card is hidden from seat 0, even as a word of a string"


async def test_a_connection_that_wants_no_events_gets_the_state_only() -> None:
    outbox = Outbox()
    room = await room_with(outbox)
    quiet = Peer("Quiet")
    quiet.wants_events = False
    await room.admit(quiet, None)
    quiet.pushed.clear()
    outbox.broadcast(room, [{"type": "note"}])
    assert [message["type"] for message in quiet.pushed] == ["state"]


async def test_one_broadcast_builds_one_view_per_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    outbox = Outbox()
    room = await room_with(outbox)
    for peer in (Peer("Ann"), Peer("Ann's phone")):
        await room.admit(peer, hash_token(HOST_TOKEN))
    for number in range(3):
        await room.admit(Peer(f"Watcher {number}"), None)
    built: list[int | None] = []
    publics: list[int] = []
    real_view_from = seat_views.view_from
    real_public_view = seat_views.public_view

    def counted_view_from(public: Any, deal: Any, seat: int | None) -> Any:
        built.append(seat)
        return real_view_from(public, deal, seat)

    def counted_public_view(deal: Any) -> Any:
        publics.append(1)
        return real_public_view(deal)

    monkeypatch.setattr(seat_views, "view_from", counted_view_from)
    monkeypatch.setattr(seat_views, "public_view", counted_public_view)
    outbox.broadcast(room, [])
    assert sorted(built, key=str) == [0, None], "five connections, two seats' worth of views"
    assert len(publics) == 1, "the public part once"


def test_the_filter_passes_a_message_when_no_deal_is_dealt() -> None:
    table = waiting_table().table
    message = {"type": "events", "events": [{"type": "note", "card": "AS"}]}
    assert filter_for_recipient(table, None, False, message) is message
    state = filter_for_recipient(table, 0, True, {"type": "state", "room": {"id": "x"}})
    you = {"seat": 0, "host": True, "spectator": False}
    assert state == {"type": "state", "room_id": "room1", "you": you, "room": {"id": "x"}, "view": None}
