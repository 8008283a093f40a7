"""The web client behind the balancer of a cluster (three replicas, room affinity: docs/scaling.md): a
room created from the lobby ends up followed by the one replica its id hashes to, and the player
notices nothing of the move."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from browser_helpers import Player, new_context, wait_until
from playwright.sync_api import Browser

from server.cluster import Cluster
from server.cluster.processes import http_json
from server.store.keys import Keys

# Every change of the `data-connection` attribute (the page's connection status), from the start.
RECORD_STATUSES = """
window.__statuses = [];
new MutationObserver(() => window.__statuses.push(document.body.dataset.connection))
  .observe(document, { subtree: true, attributes: true, attributeFilter: ["data-connection"] });
"""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Three replicas and HAProxy on a private Redis (fast bots)."""
    with Cluster(3, server_args=["--bot-delay", "0.05", "--log-level", "warning"]) as started:
        yield started


def test_a_room_created_in_the_lobby_moves_to_its_replica_and_the_player_notices_nothing(
    browser: Browser, cluster: Cluster
) -> None:
    context = new_context(browser, "desktop")
    page = context.new_page()
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    page.add_init_script(RECORD_STATUSES)
    player = Player(page)
    page.goto(cluster.url)
    room_id = player.create_room("Ann", bots=True, deals=1, ruleset="whist")
    # The lobby's connection named no room; the page opens one that names it.
    try:
        wait_until(lambda: any(url.endswith(f"/ws?room={room_id}") for url in sockets),
                   message="a connection that names the room")
    except AssertionError:
        app = "whistApp.server.replica, whistApp.conn.openedFor, whistApp.conn.moving"
        known = page.evaluate(f"() => [{app}]")
        pytest.fail(f"no connection names the room: opened {sockets}; replica, opened for, moving: {known}")
    # Only the replica the balancer sends the room's connections to follows the room, and owns it.
    replica = http_json(f"{cluster.url}health?room={room_id}")[1]["replica"]
    keys, store = Keys(), redis.Redis.from_url(cluster.store)
    try:
        wait_until(lambda: store.pubsub_numsub(keys.room_changes(room_id))[0][1] == 1,
                   message="one replica follows the room")
        owner = wait_until(lambda: store.get(keys.room_owner(room_id)), message="an owner")
        assert owner.decode().startswith(f"{replica}:"), f"owner {owner!r}, room's replica {replica}"
    finally:
        store.close()
    # The deal is played to its end from the seat the page took, with no error and no reconnection shown.
    view = player.wait_for_summary()
    assert view["seat"] == 0 and player.state()["you"]["seat"] == 0
    statuses = page.evaluate("() => window.__statuses")
    assert "open" in statuses and "reconnecting" not in statuses and "down" not in statuses, statuses
    assert page.locator("#errors .error").count() == 0, page.inner_text("#errors")
    assert player.errors == []
    context.close()
