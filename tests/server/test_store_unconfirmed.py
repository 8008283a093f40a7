"""A write whose answer is lost (the store ran it, then the connection timed out) is not reported as
"nothing was applied": the server checks what the store holds. When the store answers, the move is
confirmed at once; when it does not, the player is told the move is unconfirmed and, as soon as the
store answers again, every connection gets the stored state without asking."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from server_helpers import LiveServer

from server.client import ServerError, WhistClient
from server.store import NotReplicatedError, Store


class LostAnswers:
    """Wraps a store: `lose_next` makes the next save run and then raise as a timeout would; while
    `away`, reads fail as if the store were unreachable."""

    def __init__(self, store: Store) -> None:
        self.lose_next = False
        self.away_after_loss = False
        self.away = False
        save: Callable[..., Awaitable[int]] = store.save
        load: Callable[..., Awaitable[Any]] = store.load

        async def save_then_lose_answer(*args: Any) -> int:
            version = await save(*args)
            if self.lose_next:
                self.lose_next = False
                self.away = self.away_after_loss
                raise TimeoutError("Timeout reading from 10.1.2.3:6379")
            return version

        async def load_unless_away(*args: Any) -> Any:
            if self.away:
                raise ConnectionError("Error connecting to 10.1.2.3:6379")
            return await load(*args)

        store.save = save_then_lose_answer  # type: ignore[method-assign]
        store.load = load_unless_away  # type: ignore[method-assign]


def seat_acts(log: list[dict[str, Any]], seat: int) -> list[str]:
    return [entry["action"] for entry in log if entry.get("t") == "act" and entry.get("seat") == seat]


FirstTurn = tuple[WhistClient, LostAnswers, str]  # the client, its store's wrapper, the move


@pytest.fixture
async def at_first_turn(live: LiveServer, store: Store) -> AsyncIterator[FirstTurn]:
    """A solo-whist table with the client at seat 0 to act, the store wrapped, and the move it will
    make; the client is closed afterwards."""
    lossy = LostAnswers(store)
    client = await WhistClient.connect(live.url, name="Solo")
    try:
        await client.create_room("solo-whist", seat=0, session={"deals": 1}, bot="random")
        await client.start()
        await client.wait_for(lambda c: c.my_turn())
        assert client.view is not None and client.room_id is not None
        yield client, lossy, client.view["legal"][0]
    finally:
        await client.close()


def move_shown(action: str) -> Callable[[WhistClient], bool]:
    return lambda c: c.view is not None and [0, action] in c.view["calls"]


async def test_a_write_that_landed_but_whose_answer_was_lost_is_confirmed(
        at_first_turn: FirstTurn, store: Store) -> None:
    client, lossy, action = at_first_turn
    lossy.lose_next = True
    answer = await client.act(action)  # not an error: the store holds the move
    assert answer["action"] == action and not lossy.lose_next
    assert client.room_id is not None
    assert seat_acts(await store.read_log(client.room_id), 0) == [action], "stored once"
    await client.wait_for(move_shown(action))


async def test_a_write_of_unknown_outcome_is_unconfirmed_then_shown_when_the_store_answers(
        at_first_turn: FirstTurn, store: Store) -> None:
    client, lossy, action = at_first_turn
    lossy.lose_next = lossy.away_after_loss = True
    with pytest.raises(ServerError) as caught:
        await client.act(action)
    error = caught.value
    assert error.code == "store_unavailable"
    assert "did not confirm" in error.message and "nothing was applied" not in error.message
    assert "10.1.2.3" not in error.message, "the store's address stays in the server log"
    lossy.away = False
    # Nobody asks: the server catches the room up once the store answers and pushes the move.
    await client.wait_for(move_shown(action))
    assert client.room_id is not None
    assert seat_acts(await store.read_log(client.room_id), 0) == [action], "stored once"


async def test_a_move_no_replica_confirmed_is_refused_then_shown_as_the_store_holds_it(
        at_first_turn: FirstTurn, store: Store) -> None:
    # On Sentinel, a save the primary ran but no replica confirmed (WAIT) could be lost in a failover:
    # it is refused, never answered `ok`; the room is read again and the player shown what the store
    # holds (here the primary keeps it: the move).
    client, _, action = at_first_turn
    save: Callable[..., Awaitable[int]] = store.save
    unconfirmed = [True]

    async def save_unreplicated(room_id: str, *args: Any) -> int:
        version = await save(room_id, *args)
        if unconfirmed:
            unconfirmed.clear()
            raise NotReplicatedError(room_id, version, 0, 1)
        return version

    store.save = save_unreplicated  # type: ignore[method-assign]
    with pytest.raises(ServerError) as caught:
        await client.act(action)
    assert caught.value.code == "store_unavailable" and "replicas did not confirm" in caught.value.message
    await client.wait_for(move_shown(action))
    assert client.room_id is not None
    assert seat_acts(await store.read_log(client.room_id), 0) == [action], "stored once"


async def test_a_lost_answer_found_on_the_primary_alone_is_not_confirmed(
        at_first_turn: FirstTurn, store: Store) -> None:
    # The answer of a save is lost and the store holds the move, but its replicas do not confirm
    # everything written: not answered as done (the move is shown once the room is read again).
    client, lossy, action = at_first_turn
    held = [False]

    async def replicated(room_id: str | None = None) -> bool:
        return held[0]

    store.replicated = replicated  # type: ignore[method-assign]
    lossy.lose_next = True
    with pytest.raises(ServerError) as caught:
        await client.act(action)
    assert caught.value.code == "store_unavailable" and "did not confirm" in caught.value.message
    held[0] = True
    await client.wait_for(move_shown(action))
    assert client.room_id is not None
    assert seat_acts(await store.read_log(client.room_id), 0) == [action], "stored once"
