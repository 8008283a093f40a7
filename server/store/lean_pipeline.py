"""Batches of Redis commands on a few connections held from the client's pool, without redis-py's
`Pipeline` object.

Every action of a table runs one such batch (its save script); the fan-out's PUBLISHes and the lease
and presence passes run theirs. Through `Pipeline`, each batch also paid for a connection taken from
the blocking pool and given back (a lock, a health read on the socket), a retry wrapper and
per-argument encoding in
Python: about 55 us of CPU per batch, as much as the round trip itself (docs/benchmarks.md). Here the
commands are packed by hiredis (C) into one write, the replies read in order on a connection this
object keeps checked out of the pool (the pool still owns it: closing the pool closes it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import hiredis
from redis.asyncio import ConnectionPool
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ResponseError

from .connect import refuses_writes

Command = Sequence[str | bytes | int | float]


class LeanPipeline:
    """Runs batches of commands, at most `connections` batches at once (the others wait for one)."""

    def __init__(self, pool: ConnectionPool, connections: int = 4) -> None:
        self.pool = pool
        self._slots = asyncio.Semaphore(connections)
        self._idle: list[AbstractConnection] = []

    async def run(self, commands: Sequence[Command]) -> list[Any]:
        """Each command's reply, in order; an error reply comes back as its `ResponseError` (a lost
        script as `NoScriptError`) in its place, as `Pipeline.execute(raise_on_error=False)` gives
        it. A connection that fails raises (ConnectionError, TimeoutError): which of the commands ran
        is then unknown, and the connection is closed (the next batch opens it again). A reply that
        says the server takes no writes (`READONLY`, `NOREPLICAS`) closes it too, after the batch."""
        if not commands:
            return []
        async with self._slots:
            connection = self._idle.pop() if self._idle else await self.pool.get_connection()  # type: ignore[no-untyped-call]
            try:
                if not connection.is_connected:
                    # Through `connect`, not the socket alone (which `send_packed_command` would open
                    # again): on Sentinel, `connect` asks the sentinels where the primary is now, so a
                    # connection dropped by a failover comes back on the new primary, not the old one.
                    await connection.connect()
                # One write for the batch.
                packed = b"".join(hiredis.pack_command(tuple(command)) for command in commands)  # type: ignore[arg-type]
                await connection.send_packed_command(packed, check_health=False)
                replies: list[Any] = []
                refused = False
                for _ in commands:
                    try:
                        replies.append(await connection.read_response())
                    except ResponseError as error:  # the reply was read whole: the connection is in step
                        replies.append(error)
                        refused = refused or refuses_writes(error)
                if refused:
                    await connection.disconnect(nowait=True)
            except BaseException:
                # Replies may be left unread (a failure, a cancellation): never reuse it as it is.
                await connection.disconnect(nowait=True)
                raise
            finally:
                self._idle.append(connection)
            return replies
