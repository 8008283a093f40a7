"""Helpers of the server tests: choosing actions, playing deals with several clients, leak checks."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

from bench.leak_check import cards_in
from server.bots import get_bot
from server.client import WhistClient
from server.server import WhistServer

ROOT = Path(__file__).resolve().parents[1]
Connect = Callable[..., Awaitable[WhistClient]]

CARD = re.compile(r"^[AKQJT98765432][SHDC]$")
RANDOM = get_bot("random")


def random_choice(view: dict[str, Any]) -> str:
    """A reproducible random legal action."""
    return RANDOM.decide(view, f"test:{view['seat']}:{len(view['calls'])}:{len(view['tricks'])}", 5.0)


async def play_one_deal(clients: Iterable[WhistClient], timeout: float = 60.0) -> list[dict[str, Any]]:
    """Every client plays its seat until the deal ends; returns their final views."""
    return await asyncio.gather(*(client.play_deal(random_choice, timeout) for client in clients))


def assert_no_hidden_cards(messages: list[dict[str, Any]], record: dict[str, Any], seat: int | None) -> int:
    """Check a connection's frames of ONE deal against its record: before the end, no frame names a
    card the seat may not see (another seat's hidden hand or discard). Cards become public only when
    played (`card` events, checked against the record's plays in order) or exposed. Returns the number
    of frames checked."""
    hands = [hand.split() for hand in record["hands"]]
    plays = [action.split()[1] for _, action in record["actions"] if action.startswith("play ")]
    # Each seat's face-down discard (petite misère): gone from its hand, never shown, never played.
    discards = {int(by): action.split()[1] for by, action in record["actions"]
                if action.startswith("discard ")}
    known: set[str] = set(hands[seat]) if seat is not None else set()
    if record.get("turn_up"):
        known.add(record["turn_up"])
    played: list[str] = []
    ended = False
    checked = 0
    for message in messages:
        if ended:
            break
        if message["type"] == "events":
            for event in message["events"]:
                if event["type"] == "card":
                    played.append(event["card"])
                    known.add(event["card"])
                elif event["type"] == "exposed":
                    assert sorted(event["cards"]) == sorted(
                        card for card in hands[event["seat"]]
                        if card not in played and card != discards.get(event["seat"])
                    ), "an exposed hand must be the declarer's remaining cards"
                    known.update(event["cards"])
                elif event["type"] in ("end", "thrown_in"):
                    ended = True
        if message["type"] == "state" and message["view"] is not None:
            exposed = message["view"]["exposed"]
            for exposed_seat, cards in exposed.items():
                assert set(cards) <= set(hands[int(exposed_seat)])
                known.update(cards)
            if message["view"]["phase"] == "end":
                ended = True
                continue
        if not ended:
            leaked = cards_in(message) - known
            assert not leaked, f"seat {seat} was sent hidden cards {sorted(leaked)} in {message['type']}"
            checked += 1
    assert played == plays[: len(played)], "the card events must be the record's plays, in order"
    return checked


class LiveServer:
    """An in-process server on an ephemeral port."""

    def __init__(self, server: WhistServer, host: str, port: int) -> None:
        self.server = server
        self.url = f"ws://{host}:{port}/ws"
        self.http = f"http://{host}:{port}"


class ServerProcess:
    """`python -m server` as a subprocess (for restart and SIGKILL tests)."""

    def __init__(self, *args: str) -> None:
        self.args = [sys.executable, "-m", "server", "--host", "127.0.0.1", *args]
        self.process: subprocess.Popen[str] | None = None
        self.url = ""
        self.line = ""

    def start(self, port: int = 0) -> ServerProcess:
        """Start and wait for the announced line."""
        args = [*self.args, "--port", str(port)]
        self.process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        assert self.process.stdout is not None
        self.line = self.process.stdout.readline().strip()
        assert self.line.startswith("whist-server listening on http://"), self.line
        address = self.line.removeprefix("whist-server listening on http://").rstrip("/")
        self.url = f"ws://{address}/ws"
        return self

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.url.rsplit(":", 1)[1].split("/")[0])

    def kill(self) -> None:
        """SIGKILL: no chance to clean up."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self._close_pipe()

    def _close_pipe(self) -> None:
        if self.process is not None and self.process.stdout is not None:
            self.process.stdout.close()

    def terminate(self) -> int:
        """SIGTERM; returns the exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(20)
        self._close_pipe()
        return status
