"""HTTP on the WebSocket port, the command line, SIGTERM, and SIGKILL + restart on Redis."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server_helpers import LiveServer, ServerProcess, random_choice

from server.client import WhistClient
from server.rules.record import replay


def http_get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


async def test_static_files_room_links_and_health(live: LiveServer) -> None:
    index = await asyncio.to_thread(http_get, live.http + "/")
    assert index[0] == 200 and index[1].startswith("text/html") and b"<title>whist" in index[2]
    assert await asyncio.to_thread(http_get, live.http + "/?room=abc123") == index
    script = await asyncio.to_thread(http_get, live.http + "/app.js")
    assert script[0] == 200 and "javascript" in script[1]
    for missing in ("/nothing.css", "/../pyproject.toml", "/%2e%2e/pyproject.toml"):
        assert (await asyncio.to_thread(http_get, live.http + missing))[0] == 404
    status, kind, body = await asyncio.to_thread(http_get, live.http + "/health")
    report = json.loads(body)
    assert status == 200 and kind == "application/json"
    assert report["status"] == "ok" and report["store"] == live.server.store.kind


def test_the_default_static_dir_is_client_web() -> None:
    from server.http import DEFAULT_STATIC_DIR

    assert DEFAULT_STATIC_DIR.name == "client_web" and (DEFAULT_STATIC_DIR / "index.html").is_file()
    # Package data (server/client_web), in the source tree a link to the top-level client_web/.
    root = Path(__file__).resolve().parents[2]
    assert DEFAULT_STATIC_DIR.resolve() == (root / "client_web").resolve()


async def test_command_line_announces_its_port_and_stops_on_sigterm(
    server_process: Callable[..., ServerProcess]
) -> None:
    proc = server_process("--bot-delay", "0").start()
    assert proc.line == f"whist-server listening on http://127.0.0.1:{proc.port}/"
    client = await WhistClient.connect(proc.url, name="Term")
    await client.request("ping")
    assert await asyncio.to_thread(proc.terminate) == 0, "clean exit on SIGTERM"
    await asyncio.wait_for(client.closed.wait(), 10)
    assert client.websocket.close_code == 1001, "clients are told the server is going away"
    await client.close()


async def test_memory_store_is_the_default() -> None:
    proc = ServerProcess("--log-level", "warning").start()
    try:
        health = f"http://127.0.0.1:{proc.port}/health"
        status, _, body = await asyncio.to_thread(http_get, health)
        assert status == 200 and json.loads(body)["store"] == "memory"
    finally:
        assert proc.terminate() == 0


def actions_in(view: dict[str, Any]) -> int:
    """How many actions a view shows (calls and cards played)."""
    played = sum(len(trick["cards"]) for trick in view["tricks"])
    return len(view["calls"]) + played + (len(view["trick"]["cards"]) if view["trick"] else 0)


async def play_some(client: WhistClient, actions: int) -> None:
    """Play this seat until the deal shows `actions` actions (or ends)."""
    while True:
        await client.wait_for(lambda c: c.view is not None and (
            c.my_turn() or actions_in(c.view) >= actions or c.view["phase"] == "end"))
        view = client.view
        assert view is not None
        if actions_in(view) >= actions or view["phase"] == "end":
            return
        await client.act(random_choice(view))
        await client.wait_for(lambda c, seen=view: c.view is not seen)


async def test_sigkill_mid_deal_then_restart_loses_nothing(
    server_process: Callable[..., ServerProcess]
) -> None:
    proc = server_process("--bot-delay", "0.02").start()
    # A deal over before the kill point (random calls make many slams and spread misères, which end
    # at the first trick lost: about one deal in two) is replaced by a fresh room.
    for _attempt in range(20):
        clients = [await WhistClient.connect(proc.url, name=f"H{seat}") for seat in range(2)]
        await clients[0].create_room("solo-whist", seat=0, session={"deals": 1}, bot="random")
        room_id = clients[0].room_id
        assert room_id is not None
        await clients[1].join(room_id, 2)
        await clients[0].start()
        await asyncio.gather(*(play_some(client, 10) for client in clients))
        if clients[0].view is not None and clients[0].view["phase"] != "end":
            break
        for client in clients:
            await client.close()
    seen_before = clients[0].view
    assert seen_before is not None and seen_before["phase"] != "end", "killed in the middle of a deal"
    tokens = [client.token for client in clients]
    hands_before = [client.view["hand"] if client.view else None for client in clients]
    proc.kill()
    for client in clients:
        await asyncio.wait_for(client.closed.wait(), 10)
        await client.close()

    restarted = server_process("--bot-delay", "0.02").start(port=proc.port)  # same address as before
    assert restarted.url == proc.url
    back = [await WhistClient.connect(restarted.url, name=f"H{seat}") for seat in range(2)]
    for client, token in zip(back, tokens, strict=True):
        assert token is not None
        await client.resume(room_id, token)
        await client.wait_for(lambda c: c.view is not None)
    for client, hand in zip(back, hands_before, strict=True):
        view = client.view
        assert view is not None
        assert set(view["hand"]) <= set(hand or []), "same cards after the restart"
        assert actions_in(view) >= actions_in(seen_before), "no action was lost"
    finals = await asyncio.gather(*(client.play_deal(random_choice) for client in back))
    assert finals[0]["result"] == finals[1]["result"]
    record = (await back[0].records())[0]
    assert replay(record).result() == finals[0]["result"], "the log holds every action, before and after"
    assert [list(pair) for pair in record["actions"][: len(seen_before["calls"])]] == seen_before["calls"]
    for client in back:
        await client.close()
    assert await asyncio.to_thread(restarted.terminate) == 0
