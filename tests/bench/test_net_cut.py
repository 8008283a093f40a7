"""The network cut of bench/chaos.py (bench/net_cut.py): a process in the namespace reaches a Redis of the
host through the relays; while cut, nothing gets through (nor is anything closed); once healed, what
was sent during the cut reaches Redis late. Needs root and `ip netns` (skipped otherwise)."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from bench.net_cut import NetCut, available
from server.cluster.processes import REDIS_SERVER, PrivateRedis

pytestmark = pytest.mark.skipif(not Path(REDIS_SERVER).exists() or not available(),
                                reason="needs redis-server, root and `ip netns`")


async def test_a_cut_holds_everything_back_and_the_heal_lets_it_through_late(tmp_path: Path) -> None:
    node = PrivateRedis(tmp_path / "redis")
    node.start()
    net = NetCut(f"whist-test-cut-{node.port}", [node.port])
    await net.start()

    async def cli(*args: str) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            "redis-cli", "-p", str(node.port), *args, stdout=subprocess.PIPE, preexec_fn=net.preexec())

    async def answer(process: asyncio.subprocess.Process, timeout: float = 60) -> str:
        out, _ = await asyncio.wait_for(process.communicate(), timeout)
        return out.decode().strip()

    try:
        assert await answer(await cli("SET", "k", "before")) == "OK"
        net.cut()
        during = await cli("SET", "k", "during")
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(asyncio.shield(during.wait()), 1.0)  # nothing gets through
        assert node.ping(), "the host's Redis itself answers"
        net.heal()
        assert await answer(during) == "OK"  # the command sent during the cut, late
        assert await answer(await cli("GET", "k")) == "during"
    finally:
        await net.close()
        node.kill()
