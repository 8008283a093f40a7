"""Settings (server/settings.py): every limit and default defined once, the flags generated from them
and shown by `--help`, the server and the cluster launcher reading the same defaults, and the version
read from the package metadata."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import inspect
import json
import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from server_helpers import LiveServer

from server.__main__ import parse_args
from server.client import WhistClient
from server.cluster.__main__ import parse_args as parse_cluster_args
from server.live import Tables
from server.live.bots import BotDriver
from server.server import SERVER_NAME, WhistServer
from server.settings import (
    DEFAULTS,
    Limits,
    ServerSettings,
    flag_of,
    package_version,
    setting_fields,
    settings_from,
    shown_default,
)
from server.store import MemoryStore

ROOT = Path(__file__).resolve().parents[2]


def help_text(*module: str) -> str:
    """The `--help` of `python -m MODULE`."""
    return subprocess.run([sys.executable, "-m", *module, "--help"], capture_output=True, text=True,
                          check=True, cwd=ROOT).stdout


def help_entries(text: str) -> dict[str, str]:
    """Each option's entry in a `--help`, by its flag, on one line (argparse wraps it at any space)."""
    entries: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.split("\noptions:", 1)[1].splitlines():
        if line.startswith("  -"):
            current = entries.setdefault(line.split()[0].rstrip(","), [])
        elif not line.startswith("    "):  # a blank line or a group's heading ends the entry
            current = None
        if current is not None:
            current.append(line)
    return {flag: " ".join(" ".join(lines).split()) for flag, lines in entries.items()}


@pytest.fixture
async def memory_server(tmp_path: Path) -> AsyncIterator[LiveServer]:
    """A server on the memory store, with the default settings but a fast bucket."""
    server = WhistServer(MemoryStore(), bot_delay=0.0, static_dir=tmp_path, limits=Limits(200.0, 400.0))
    host, port = await server.start("127.0.0.1", 0)
    yield LiveServer(server, host, port)
    await server.stop()


def test_help_shows_every_setting_with_its_default() -> None:
    entries = help_entries(help_text("server"))
    fields = setting_fields(ServerSettings) + setting_fields(Limits)
    assert len(fields) > 25
    for item in fields:
        flag = flag_of(item)
        assert flag in entries, f"{flag} is not in --help"
        assert entries[flag].endswith(f"(default: {shown_default(item)})"), entries[flag]
    assert entries["--bot-delay"].endswith("(default: 0.6)")
    assert entries["--max-strikes"].endswith("(default: 30)")


def test_the_command_line_defaults_are_the_settings_defaults() -> None:
    assert settings_from(parse_args([])) == ServerSettings() == DEFAULTS
    assert DEFAULTS.limits == Limits()
    assert Limits().burst == 2 * Limits().rate, "--burst defaults to twice --rate-limit, as the class does"


def test_each_flag_sets_its_setting() -> None:
    settings = settings_from(parse_args([
        "--port", "9000", "--bot-delay", "0.25", "--max-strikes", "5", "--strike-window", "2.5",
        "--max-frame-bytes", "1000", "--max-queued-frames", "7", "--burst", "3", "--rate-limit", "2",
        "--ping-timeout", "0", "--trusted-proxy", "10.0.0.0/8", "--static-dir", "/srv/client"]))
    assert (settings.port, settings.bot_delay, settings.trusted_proxy, settings.static_dir) == (
        9000, 0.25, ("10.0.0.0/8",), Path("/srv/client"))
    assert settings.limits == dataclasses.replace(Limits(), rate=2.0, burst=3.0, max_strikes=5,
                                                  strike_window=2.5, frame_bytes=1000, queued_frames=7,
                                                  ping_timeout=None)


def test_the_bot_delay_default_is_written_once() -> None:
    assert inspect.signature(WhistServer).parameters["bot_delay"].default == DEFAULTS.bot_delay
    # The room layer takes the delay it is given: no default of its own to drift from the server's.
    assert inspect.signature(Tables).parameters["bot_delay"].default is inspect.Parameter.empty
    assert inspect.signature(BotDriver).parameters["delay"].default is inspect.Parameter.empty


def test_the_cluster_launcher_shows_the_servers_defaults() -> None:
    args = parse_cluster_args([])
    assert (args.host, args.port) == (DEFAULTS.host, DEFAULTS.port)
    assert args.bot_delay is None and args.rate_limit is None, "the replicas' own defaults apply"
    text = " ".join(help_text("server.cluster").split())
    assert f"passed on to every replica (default {DEFAULTS.bot_delay:g})" in text
    assert f"passed on to every replica (default {DEFAULTS.limits.rate:g})" in text


async def test_the_server_reads_its_limits(memory_server: LiveServer) -> None:
    server = memory_server.server
    server.limits = dataclasses.replace(server.limits, frame_bytes=500, max_strikes=3)
    client = await WhistClient.connect(memory_server.url, name="Frames")
    try:
        await client.send_raw(json.dumps({"type": "hello", "id": 1, "name": "x" * 600}))
        await client.wait_for(lambda c: any(m.get("code") == "frame_too_large" for m in c.received))
        [answer] = [m for m in client.received if m.get("code") == "frame_too_large"]
        assert "500 bytes" in answer["message"]
        for _ in range(2):
            await client.send_raw("not json")
        await client.closed.wait()
        assert client.websocket.close_code == 1008, "three strikes close the connection"
    finally:
        await client.close()


def test_the_version_comes_from_the_package_metadata() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    version = importlib.metadata.version(pyproject["name"])
    assert package_version() == version == pyproject["version"]
    assert f"whist-server {version}" == SERVER_NAME
    shown = subprocess.run([sys.executable, "-m", "server", "--version"], capture_output=True, text=True,
                           check=True, cwd=ROOT).stdout
    assert shown.strip() == f"whist-server {version}"
    # Written in pyproject.toml only: no module of the package repeats it.
    repeated = [path.relative_to(ROOT).as_posix() for path in (ROOT / "server").rglob("*.py")
                if json.dumps(version) in path.read_text()]
    assert repeated == []


async def test_hello_names_the_version(memory_server: LiveServer) -> None:
    client = await WhistClient.connect(memory_server.url, name=None)
    try:
        answer = await client.request("hello", name="Ada")
        assert answer["server"] == f"whist-server {package_version()}"
    finally:
        await client.close()
