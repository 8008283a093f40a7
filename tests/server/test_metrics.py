"""`/metrics`: the Prometheus page of a live server, its counters moving, the store wrapper's figures."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from server_helpers import Connect, LiveServer

from server.client import ServerError
from server.metrics import InstrumentedStore, Metrics
from server.store import MemoryStore, StoredRoom, VersionConflictError

DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape_page(live: LiveServer) -> tuple[int, str, str]:
    with urllib.request.urlopen(live.http + "/metrics", timeout=10) as response:
        return response.status, response.headers["Content-Type"], response.read().decode()


async def scrape(live: LiveServer) -> Samples:
    """Every sample of the live server's /metrics, by name and sorted labels."""
    status, _, text = await asyncio.to_thread(scrape_page, live)
    assert status == 200
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_the_page_is_prometheus_text_and_lists_every_documented_metric(live: LiveServer) -> None:
    status, kind, text = await asyncio.to_thread(scrape_page, live)
    assert status == 200 and kind.startswith("text/plain") and "version=0.0.4" in kind
    families = {family.name for family in text_string_to_metric_families(text)}
    documented = set(re.findall(r"^\| `(whist_[a-z_]+)`", DOCS.read_text(), re.MULTILINE))
    # Counters are exposed as `name` families (the `_total` samples live in them).
    exposed = {name + "_total" if name + "_total" in documented else name for name in families}
    assert documented == exposed, "docs/operations.md and server/metrics.py must list the same metrics"
    assert all(name.startswith("whist_") for name in families)


async def test_connections_by_kind_follow_lobby_seat_and_spectating(live: LiveServer,
                                                                   connect: Connect) -> None:
    host = await connect("Host")
    samples = await scrape(live)
    assert value(samples, "whist_connections", kind="lobby") == 1
    assert value(samples, "whist_connections", kind="player") == 0
    await host.create_room("solo-whist", seat=0, listed=False)
    watcher = await connect("Watcher")
    await watcher.watch(host.room_id)
    samples = await scrape(live)
    assert [value(samples, "whist_connections", kind=kind) for kind in ("player", "spectator", "lobby")] == \
        [1, 1, 0]
    assert value(samples, "whist_rooms", kind="private", status="waiting") == 1
    assert value(samples, "whist_connections_opened_total") == 2
    await watcher.close()
    await live_condition(live, lambda s: value(s, "whist_connections", kind="spectator") == 0)
    samples = await scrape(live)
    assert value(samples, "whist_connections_closed_total", code="1000") == 1


async def live_condition(live: LiveServer, holds: Callable[[Samples], bool], tries: int = 500) -> Samples:
    """Scrape until `holds(samples)` (the server notices a close after the client sent it)."""
    for _ in range(tries):
        samples = await scrape(live)
        if holds(samples):
            return samples
        await asyncio.sleep(0.02)
    raise AssertionError("the metrics never reached the expected values")


async def test_requests_errors_actions_and_store_calls_are_counted(live: LiveServer,
                                                                  connect: Connect) -> None:
    client = await connect("Ann", binary=True)
    before = await scrape(live)
    assert await client.request("ping") == {}
    await client.send_raw(b"\xc1")  # not msgpack
    answer = await client.request_raw({"type": "fly", "id": 7})
    assert answer["code"] == "unknown_type"
    await client.create_room("solo-whist", seat=0, bot="random", listed=False)
    await client.start()
    await client.wait_for(lambda c: c.my_turn())
    view = client.view
    assert view is not None
    await client.act(view["legal"][0])
    # The bots (no delay here) play on after the act, and may end the deal (all four passed: thrown in):
    # scrape once the table waits for Ann again, to act or to be ready, so that the room's status can
    # no longer move under the scrape.
    await client.wait_for(lambda c: c.my_turn() or (c.room is not None and c.room["status"] != "playing"))
    assert client.room is not None
    status = client.room["status"]
    after = await scrape(live)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("whist_requests_total", type="ping", outcome="ok") == 1
    assert moved("whist_requests_total", type="invalid", outcome="error") == 2
    assert moved("whist_errors_total", code="bad_msgpack") == 1
    assert moved("whist_errors_total", code="unknown_type") == 1
    assert moved("whist_actions_total", by="human") == 1
    # Every applied action, the human's and the bots' (which may move between the scrapes), is timed.
    assert moved("whist_action_to_push_seconds_count") == moved("whist_actions_total", by="human") + moved(
        "whist_actions_total", by="bot")
    assert moved("whist_request_seconds_count") == 6  # ping, two bad frames, create_room, start, act
    assert value(after, "whist_store_operation_seconds_count", operation="save") >= 3
    rooms = {labels: count for (name, labels), count in after.items() if name == "whist_rooms" and count}
    assert rooms == {(("kind", "private"), ("status", status)): 1}


async def test_a_flooder_closed_with_1008_counts_as_a_rate_limit_close(live: LiveServer,
                                                                        connect: Connect) -> None:
    client = await connect(None)
    for number in range(100):
        if client.closed.is_set():
            break
        await client.send_raw(json.dumps({"type": "nonsense", "id": number}))
    await asyncio.wait_for(client.closed.wait(), 30)
    assert client.websocket.close_code == 1008
    samples = await live_condition(live, lambda s: value(s, "whist_rate_limit_closes_total") == 1)
    assert value(samples, "whist_errors_total", code="unknown_type") >= 30


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


async def test_http_requests_are_counted_by_endpoint(live: LiveServer) -> None:
    statuses = [await asyncio.to_thread(http_status, live.http + path)
                for path in ("/health", "/", "/missing.css")]
    assert statuses == [200, 200, 404]
    samples = await scrape(live)
    assert value(samples, "whist_http_requests_total", endpoint="health", status="200") == 1
    assert value(samples, "whist_http_requests_total", endpoint="static", status="200") == 1
    assert value(samples, "whist_http_requests_total", endpoint="not_found", status="404") == 1
    assert value(samples, "whist_store_operation_seconds_count", operation="ping") == 1


class FlakyStore(MemoryStore):
    """A memory store whose next calls fail as told."""

    def __init__(self) -> None:
        super().__init__()
        self.failures: list[Exception] = []

    async def load(self, room_id: str) -> StoredRoom | None:
        if self.failures:
            raise self.failures.pop(0)
        return await super().load(room_id)


async def test_the_store_wrapper_counts_conflicts_errors_and_redis_coming_back() -> None:
    metrics = Metrics()
    inner = FlakyStore()
    store = InstrumentedStore(inner, metrics)
    assert await store.save("r", {"n": 0}, 0, [], None) == 1
    with pytest.raises(VersionConflictError):
        await store.save("r", {"n": 1}, 0, [], None)
    inner.failures = [ConnectionError("down"), ConnectionError("still down")]
    for _ in range(2):
        with pytest.raises(ConnectionError):
            await store.load("r")
    assert (await store.load("r")) is not None
    assert (await store.load("r")) is not None
    text = metrics.exposition().decode()
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
               for family in text_string_to_metric_families(text) for s in family.samples}
    assert value(samples, "whist_store_conflicts_total") == 1
    assert value(samples, "whist_store_errors_total", operation="load") == 2
    assert value(samples, "whist_redis_reconnects_total") == 1, "one outage, one recovery"
    assert value(samples, "whist_store_operation_seconds_count", operation="save") == 2
    assert value(samples, "whist_store_operation_seconds_count", operation="load") == 4


def test_each_server_has_its_own_registry() -> None:
    first, second = Metrics(), Metrics()
    first.count_error("conflict")
    first.observe_action_to_push(0.002)
    first.observe_bot_decision("heuristic", 0.01)
    assert "whist_errors_total{code=\"conflict\"} 1.0" in first.exposition().decode()
    assert "code=\"conflict\"" not in second.exposition().decode()
    assert "whist_bot_decision_seconds_count{bot=\"heuristic\"} 1.0" in first.exposition().decode()


# ------------------------------------------------------------------------------- the room layer


async def test_bot_actions_decisions_and_rooms_by_kind_are_metered(live: LiveServer,
                                                                   connect: Connect) -> None:
    host = await connect("Host")
    before = await scrape(live)
    await host.create_room("solo-whist", seat=None, bot="random", listed=True, session={"deals": 1})
    await host.start()
    # The one deal is played out by the bots alone.
    after = await live_condition(live, lambda s: value(s, "whist_rooms", kind="listed", status="over") == 1)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    bot_actions = moved("whist_actions_total", by="bot")
    assert bot_actions >= 4, "at least the four calls of the auction"
    assert moved("whist_actions_total", by="human") == 0
    assert moved("whist_bot_decision_seconds_count", bot="random") >= bot_actions, "every decision is timed"
    assert moved("whist_action_to_push_seconds_count") == bot_actions
    assert value(after, "whist_rooms", kind="listed", status="playing") == 0

    player = await connect("Daily")
    await player.daily()
    await live_condition(live, lambda s: value(s, "whist_rooms", kind="daily", status="playing") == 1)


async def test_an_error_answer_counts_by_code(live: LiveServer, connect: Connect) -> None:
    client = await connect("Ann")
    before = await scrape(live)
    with pytest.raises(ServerError):
        await client.request("daily_deal_results", deal=0)
    with pytest.raises(ServerError):
        await client.request("join", room_id="nowhere")
    after = await scrape(live)
    assert value(after, "whist_errors_total", code="not_daily") - value(before, "whist_errors_total",
                                                                     code="not_daily") == 1
    assert value(after, "whist_errors_total", code="no_such_room") - value(
        before, "whist_errors_total", code="no_such_room") == 1


async def test_a_stalled_event_loop_shows_in_the_loop_lag_histogram(live: LiveServer) -> None:
    def late(samples: Samples) -> float:
        return (value(samples, "whist_event_loop_lag_seconds_count")
                - value(samples, "whist_event_loop_lag_seconds_bucket", le="0.25"))

    first = await scrape(live)
    time.sleep(0.3)  # the server shares this event loop: hold it, as a long callback would
    for _ in range(200):
        samples = await scrape(live)
        if late(samples) > late(first):
            break
        await asyncio.sleep(0.05)
    # The 50 ms timer was due at most 50 ms into the stall, so it fired at least 250 ms late.
    assert late(samples) >= late(first) + 1
