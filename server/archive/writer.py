"""Writing to the archive without ever holding up live play: a background task that writes each
submitted session, retrying with exponential backoff while the archive is down (or not yet reachable at
start), and tells the submitter once a session is archived (then, and only then, may its live keys get
an expiry). Nothing is lost while the process lives, and nothing is doubled: writes are idempotent
(`Archive.write_session`). What a crash loses is only the in-memory queue: the live store still holds
those sessions, for the next owner to submit again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from .base import Archive
from .model import ArchivedSession

log = logging.getLogger("whist.archive")

Archived = Callable[[ArchivedSession, bool], Awaitable[None]]  # (session, written now) once archived
Observer = Callable[[str, float], None]  # (written | already | failed, seconds): each attempt, for /metrics


@dataclass(slots=True)
class _Pending:
    session: ArchivedSession
    done: Archived | None
    attempts: int = 0
    not_before: float = 0.0


@dataclass(frozen=True, slots=True)
class WriterStats:
    """What /metrics and /health need: sessions written, found already archived, failed attempts,
    the last write's latency, how many wait, and the last error (None once a write succeeds)."""

    written: int
    already: int
    failures: int
    last_latency: float | None
    pending: int
    last_error: str | None

    @property
    def healthy(self) -> bool:
        """Whether the last attempt succeeded (or none has failed yet)."""
        return self.last_error is None


class ArchiveWriter:
    """Writes submitted sessions in the background (`start`, `submit`, `stop`)."""

    def __init__(self, connect: Callable[[], Awaitable[Archive]], *, first_delay: float = 0.5,
                 max_delay: float = 30.0, kind: str = "archive") -> None:
        """`connect` opens the archive (called again after a failure to open); `kind` names it for
        /health (sqlite, postgresql)."""
        self._connect = connect
        self.kind = kind
        self._observers: list[Observer] = []
        self._archive: Archive | None = None
        self._first_delay = first_delay
        self._max_delay = max_delay
        self._pending: list[_Pending] = []
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self._written = self._already = self._failures = 0
        self._last_latency: float | None = None
        self._last_error: str | None = None

    def observe(self, observer: Observer) -> None:
        """Call `observer(result, seconds)` after every write attempt (result: written, already, failed)."""
        self._observers.append(observer)

    def _observed(self, result: str, started: float) -> None:
        for observer in self._observers:
            observer(result, time.monotonic() - started)

    def start(self) -> None:
        """Start the background task."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="archive-writer")

    def submit(self, session: ArchivedSession, done: Archived | None = None) -> None:
        """Queue a session; `done` is awaited once it is in the archive."""
        self._pending.append(_Pending(session, done))
        self._idle.clear()
        self._wake.set()

    async def drain(self) -> None:
        """Wait until every submitted session is archived."""
        await self._idle.wait()

    async def archive(self) -> Archive:
        """The open archive, for reading (the writer's own connection, opened now if it is not yet);
        raises what opening raises while the archive is down."""
        if self._archive is None:
            self._archive = await self._connect()
        return self._archive

    def stats(self) -> WriterStats:
        """The counters so far."""
        return WriterStats(self._written, self._already, self._failures, self._last_latency,
                           len(self._pending), self._last_error)

    async def stop(self) -> None:
        """Stop the task (what waits stays unwritten: the live store still has it) and close."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._archive is not None:
            await self._archive.close()
            self._archive = None

    async def _run(self) -> None:
        while True:
            now = time.monotonic()
            due = [item for item in self._pending if item.not_before <= now]
            for item in due:
                await self._attempt(item)
            if not self._pending:
                self._idle.set()
                self._wake.clear()
                await self._wake.wait()
                continue
            wait = min(item.not_before for item in self._pending) - time.monotonic()
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(wait, 0.0))

    async def _attempt(self, item: _Pending) -> None:
        started = time.monotonic()
        try:
            if self._archive is None:
                self._archive = await self._connect()
            written = await self._archive.write_session(item.session)
        except Exception as error:  # any failure is retried: the write is idempotent
            self._failures += 1
            self._last_error = f"{type(error).__name__}: {error}"
            self._observed("failed", started)
            item.attempts += 1
            item.not_before = time.monotonic() + min(self._max_delay,
                                                     self._first_delay * 2 ** (item.attempts - 1))
            log.warning("archive write failed; will retry", extra={"fields": {
                "session_id": item.session.session_id, "attempts": item.attempts, "error": self._last_error}})
            await self._drop_archive_if_broken()
            return
        self._last_latency = time.monotonic() - started
        self._last_error = None
        if written:
            self._written += 1
        else:
            self._already += 1
        self._observed("written" if written else "already", started)
        self._pending.remove(item)
        if item.done is not None:
            try:
                await item.done(item.session, written)
            except Exception:  # the session is archived: the submitter's follow-up is its own affair
                log.exception("after archiving %s", item.session.session_id)

    async def _drop_archive_if_broken(self) -> None:
        if self._archive is not None and not await self._archive.ping():
            with contextlib.suppress(Exception):
                await self._archive.close()
            self._archive = None
