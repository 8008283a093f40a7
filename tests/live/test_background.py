"""The coordination pieces' background tasks (server/live/background.py): spawned tasks run until
they end or `close` cancels them; `running` says whether new work may start."""

from __future__ import annotations

import asyncio

from server.live.background import Background


async def test_close_cancels_what_still_runs_and_forgets_what_ended() -> None:
    background = Background()
    assert not background.running
    background.start()
    forever = background.spawn(asyncio.sleep(3600), name="forever")
    done = background.spawn(asyncio.sleep(0))
    await done
    await asyncio.sleep(0)
    assert background.tasks == frozenset({forever}) and background.running
    background.stop()
    assert not background.running and not forever.done()  # stopping starts nothing new, cancels nothing
    await background.close()
    assert forever.cancelled() and background.tasks == frozenset()
