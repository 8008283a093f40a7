"""Following other processes' changes of the rooms held here.

A process follows a room (subscribes to its channel on the fan-out) while it has connections there or
owns it. Subscribe first, then reload: a change published in between is then either in the stored
state or received (and skipped if older). A received change is handled in order, one room at a time
(the receive queue): the copy here moves on by the logged entries (`LiveRoom.advance`), or is
reloaded from the store when a version was skipped (pub/sub is at most once) or after the subscriber
reconnected (`resync`), then handed to this process's listeners (the outbox pushes it through the one
filter). A room whose copy may be behind the store (a reload failed, messages were lost, a write's
outcome is unknown) is caught up, trying again until the store answers.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from ..coord import Change, Fanout
from .background import Background
from .change import JSON, CommittedChange
from .presence import RemotePresence, here
from .publisher import RETRY_FIRST_SECONDS, RETRY_MAX_SECONDS
from .publishing import Publishing
from .room import LiveRoom, RoomListener

log = logging.getLogger("whist.shared")

Claim = Callable[[LiveRoom], Awaitable[None]]  # the owner gave the room up: take it if wanted


class Following(RoomListener):
    """The rooms this process follows, its receive queue and its catch-up retries."""

    def __init__(self, fanout: Fanout, held: Callable[[str], LiveRoom | None], presence: RemotePresence,
                 publishing: Publishing, claim_released: Claim, background: Background,
                 heard_chat: Callable[[LiveRoom, JSON], None]) -> None:
        self.fanout = fanout
        self.heard_chat = heard_chat  # a chat line said through another process (its own message kind)
        self.held = held  # the room registry's lookup of rooms held here
        self.presence = presence
        self.publishing = publishing
        self.claim_released = claim_released
        self.background = background
        self.subscribed: set[str] = set()
        self._inbox: dict[str, collections.deque[Change]] = {}
        self._draining: dict[str, asyncio.Task[None]] = {}
        self._behind: set[str] = set()  # followed rooms whose copy may be behind (see `fall_behind`)
        self._catching_up: asyncio.Task[None] | None = None

    def follows(self, room_id: str) -> bool:
        """Whether this process follows the room's changes."""
        return room_id in self.subscribed

    # ---------------------------------------------------------------- following and leaving rooms

    async def follow_new(self, room: LiveRoom) -> None:
        """Follow a room just created here (nobody else knows it yet: nothing to reload)."""
        self.subscribed.add(room.room_id)
        await self.fanout.subscribe(room.room_id, self._received)

    async def follow(self, room: LiveRoom) -> None:
        """Follow the room's changes and be current (subscribe first, then reload)."""
        if self.follows(room.room_id):
            return
        await self.follow_new(room)
        # A process that publishes nothing because nobody listened publishes again when told; its
        # answer (its version) covers what it committed before hearing this and after the reload below.
        self.publishing.following(room.room_id)
        async with room.lock:
            await self._reload(room)  # on failure the room is caught up later (`fall_behind`)
            await self.presence.from_store(room)

    async def unfollow(self, room: LiveRoom) -> bool:
        """Stop following the room's changes (nothing here needs them); True if it was followed."""
        if not self.follows(room.room_id):
            return False
        self.subscribed.discard(room.room_id)
        await self.fanout.unsubscribe(room.room_id, self._received)
        room.mark_stale()  # no longer told of changes: reload before using it again
        self.presence.forget(room.room_id)
        return True

    async def owned(self, room: LiveRoom) -> None:
        """An owner follows its room (before its bots and timers start: they need the current copy)."""
        await self.follow(room)

    async def disowned(self, room: LiveRoom) -> None:
        """No longer the owner: stop following the room when no connection here needs it."""
        if not room.members:
            await self.unfollow(room)

    def unconfirmed(self, room: LiveRoom) -> None:
        """A write's outcome is unknown: catch the room up as soon as the store answers, so that its
        connections learn whether the move happened without having to ask."""
        self.fall_behind(room.room_id)

    def closed(self, room: LiveRoom) -> None:
        """The room left this process's memory: leave its channel."""
        if self.background.running and self.follows(room.room_id):
            self.subscribed.discard(room.room_id)
            self.background.spawn(self.fanout.unsubscribe(room.room_id, self._received))

    def resync(self, rooms: frozenset[str]) -> None:
        """The subscriber was away (messages may be lost): catch every followed room up (in the
        background: the subscriber goes on reading meanwhile). A newcomer's "subscribed" may be among
        the lost messages: publish every room's next change again. And say again that this process
        follows each room (as `follow` does): a process that published while this subscriber was away
        reached nobody else and publishes nothing more until it hears so (its answer, a note of its
        version, reaches the subscriber, which is back before this is called)."""
        self.publishing.everyone_again()
        for room_id in rooms:
            if self.follows(room_id):
                self.publishing.following(room_id)
            self.fall_behind(room_id)

    # ---------------------------------------------------------------- the receive queue

    def _received(self, message: Change) -> None:
        """A change from another process: handled in order, one room at a time."""
        room_id = message.room_id
        self._inbox.setdefault(room_id, collections.deque()).append(message)
        task = self._draining.get(room_id)
        if task is None or task.done():
            self._draining[room_id] = self.background.spawn(self._drain(room_id))

    async def _drain(self, room_id: str) -> None:
        inbox = self._inbox.get(room_id)
        while inbox:
            message = inbox.popleft()
            try:
                await self._apply_received(room_id, message)
            except Exception:
                log.exception("room %s: a received change failed", room_id)
        self._inbox.pop(room_id, None)

    async def _apply_received(self, room_id: str, message: Change) -> None:
        room = self.held(room_id)
        if room is None or not self.follows(room_id):
            return
        data = message.change
        if "released" in data:
            await self.claim_released(room)
            return
        if "subscribed" in data:
            self.publishing.answer_newcomer(room)
            return
        if "chat" in data:
            self.heard_chat(room, data["chat"])
            return
        change = CommittedChange.from_json(data["change"])
        async with room.lock:
            seen = data.get("here")
            if isinstance(seen, dict):
                self.presence.heard(room, message.origin, seen)
            if change.stored:
                if change.version <= room.version and not room.stale:
                    # Already here (a reload after a lost race brought it): only its presence is news.
                    if not isinstance(seen, dict):
                        return
                    change = CommittedChange(room_id, room.version, presence=change.presence, stored=False)
                elif change.version == room.version + 1 and not room.stale and "state" in data:
                    room.advance(data["state"], change.version, change.entries)
                else:
                    await self._reload(room)
            room.announce(replace(change, received=True))

    async def _reload(self, room: LiveRoom) -> None:
        try:
            await room.reload()
        except Exception:
            log.exception("room %s: reload failed", room.room_id)
            room.mark_stale()
            self.fall_behind(room.room_id)

    # ---------------------------------------------------------------- catching up

    def fall_behind(self, room_id: str) -> None:
        """The room's copy here may be behind the store, and its connections here not told (a reload
        failed, or messages were lost): catch it up, trying again until the store answers.

        Why: a change missed here is otherwise heard of only with the room's next change, and there
        may be none: when the missed change gave the turn to a player connected here (or was the last
        `ready` before the owner deals), every seat waits for a move nobody was told to make."""
        self._behind.add(room_id)
        if self.background.running and (self._catching_up is None or self._catching_up.done()):
            self._catching_up = self.background.spawn(self._catch_up_behind(), name="shared-catch-up")

    async def _catch_up_behind(self) -> None:
        delay = RETRY_FIRST_SECONDS
        while self._behind:
            for room_id in sorted(self._behind):
                room = self.held(room_id)
                try:
                    done = room is None or not self.follows(room_id) or await self.catch_up(room)
                except Exception:  # not caught up: the next round tries again
                    log.exception("room %s: catch-up failed", room_id)
                    done = False
                if done:
                    self._behind.discard(room_id)
            if self._behind:
                await asyncio.sleep(delay)
                delay = min(RETRY_MAX_SECONDS, delay * 2)

    async def catch_up(self, room: LiveRoom) -> bool:
        """Reload the room, read the shared presence, tell the connections here (their listeners hear
        the room as it is: the bots wake) and the other processes (where this process's connections
        are). False if the reload failed (the caller tries again); presence not read is not retried:
        the others publish theirs when they resync, and the reconcile pass drops processes that died."""
        async with room.lock:
            try:
                await room.reload()
            except Exception as problem:
                log.warning("room %s: catch-up reload failed: %s", room.room_id, type(problem).__name__)
                room.mark_stale()
                return False
            await self.presence.from_store(room)
            seen = here(room)
        self.publishing.caught_up(room, seen)
        return True
