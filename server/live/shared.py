"""Several server processes on one store: this process's rooms wired to the coordination primitives
of `server/coord/` (owner leases, fan-out, shared presence, process registry, owner book).

Each responsibility is one listener of the rooms, owning its own state; they hear each other only
through the room's hooks (`owned`, `disowned`, `away`, `loaded`...) and the small ports passed here:

- `Ownership` (`ownership.py`): leases and hand-over; the `Owner` port of the bots and timers.
- `Following` (`following.py`): other processes' changes, the receive queue, catch-up retries.
- `RemotePresence` (`presence.py`): who is connected to the rooms in the other processes.
- `Publishing` (`publishing.py`): what to tell the others; `Publisher` sends it, in order.
- `LobbyPings` (`lobby_pings.py`): a lobby line changed here, or elsewhere.
- `Adoption` (`adoption.py`): the owner book, the rooms whose owner died, and the index writes a dead
  owner may have owed (`repair_index`, the store's).
- Chat lines said here go out on the room's channel as their own message kind (`publish_chat`), and
  `Following` hands those heard to the chat (`heard_chat`): never a change of the room.

This module only builds them (the one place they are wired), starts and stops them, and says what a
connection entering or leaving a room means for them. With the in-memory twins (`memory_coordination`,
the default of a single process) this process owns every room it holds and publishes to nobody.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from ..coord import Coordination
from .adoption import Adoption
from .background import Background
from .change import JSON
from .following import Following
from .lobby_pings import LobbyPings
from .ownership import Ownership
from .presence import RemotePresence
from .publisher import Publisher
from .publishing import Publishing
from .registry import RoomRegistry
from .room import LiveRoom, RoomListener


class SharedRooms(RoomListener):
    """The wiring of one process's rooms to the others (see the module docstring); as a listener, it
    claims each room loaded from the store."""

    def __init__(self, coord: Coordination, rooms: RoomRegistry, lobby_changed: Callable[[], None],
                 heard_chat: Callable[[LiveRoom, JSON], None],
                 repair_index: Callable[[str], Awaitable[None]]) -> None:
        self.coord = coord
        self.background = Background()
        held = rooms.held
        self.publisher = Publisher(coord)
        process = coord.process_id
        self.presence = RemotePresence(process, coord.presence, coord.registry, held, self.background)
        self.publishing = Publishing(process, self.publisher, coord.fanout, self.background)
        self.lobby_pings = LobbyPings(self.publisher, coord.fanout, lobby_changed, self.background)
        self.ownership = Ownership(process, coord.leases, held, self.presence, self.publishing,
                                   self.background)
        self.following = Following(coord.fanout, held, self.presence, self.publishing,
                                   self.ownership.claim_released, self.background, heard_chat)
        self.adoption = Adoption(process, coord.owners, coord.registry, rooms, self.ownership,
                                 self.background, repair_index)
        self._started = False

    @property
    def first_listeners(self) -> tuple[RoomListener, ...]:
        """The listeners that must hear a room's hooks before the bots and timers (an owner follows
        its room, current, before they run)."""
        return (self.following,)

    @property
    def listeners(self) -> tuple[RoomListener, ...]:
        """The other listeners, in order (after the outbox, bots and timers)."""
        return (self.ownership, self.presence, self.publishing, self.lobby_pings, self.adoption, self)

    @property
    def process_id(self) -> str:
        """This process's id among those on the store."""
        return self.coord.process_id

    def owns(self, room: LiveRoom) -> bool:
        """Whether this process owns the room (runs its bots and timers)."""
        return self.ownership.owns(room)

    # ---------------------------------------------------------------- life cycle

    async def start(self) -> None:
        """Start the coordination (once) and the publisher, presence, hand-over and orphan passes."""
        if self._started:
            return
        self._started = True
        self.background.start()
        await self.coord.start(on_acquired=self.ownership.acquired, on_lost=self.ownership.lost,
                               on_resync=self.following.resync)
        await self.lobby_pings.start()
        self.background.spawn(self.publisher.run(), name="shared-publisher")
        self.presence.start()
        self.ownership.start()
        self.adoption.start()

    async def close(self) -> None:
        """Send what is queued (briefly), stop, release every lease and presence entry."""
        if not self._started:
            return
        self._started = False
        self.background.stop()
        await self.publisher.flush(2.0)
        await self.background.close()
        await self.coord.close()

    # ---------------------------------------------------------------- rooms served here

    async def adopt(self, room: LiveRoom, new: bool = False) -> None:
        """A room just created (`new`) or loaded here: claim it (now, and whenever its lease is free)."""
        await self.start()
        if room.over:
            return
        if not await self.ownership.claim(room):
            if not self.following.follows(room.room_id):
                room.mark_stale()  # another process runs it: this copy is not told of changes
            return
        if new:  # nobody else knows the room yet: nothing to reload
            await self.following.follow_new(room)
        await self.ownership.took(room)

    async def loaded(self, room: LiveRoom) -> None:
        """A room loaded from the store: claim it."""
        await self.adopt(room)

    async def attach(self, room: LiveRoom) -> None:
        """A connection is about to enter the room here: follow its changes, be current, and take the
        room whenever its lease is free (a process with connections in a room is a candidate owner)."""
        await self.start()
        self.ownership.want(room)
        await self.following.follow(room)

    async def detach(self, room: LiveRoom) -> None:
        """A connection left the room here: hand it over if only other processes have connections
        there; stop following it when nothing here needs it."""
        await self.ownership.hand_over_if_live_elsewhere(room)
        if room.members or self.owns(room):
            return
        if await self.following.unfollow(room) and room.over:
            self.ownership.unwant(room)

    def publish_chat(self, room: LiveRoom, line: JSON) -> None:
        """Hand a chat line said here to the other processes following the room (none: nothing sent)."""
        if self._started and not self.coord.fanout.alone(room.room_id):
            self.publisher.send(room.room_id, {"chat": line})

    def lobby_changed(self) -> None:
        """Tell every process that a lobby line changed (they push the lobby to their subscribers)."""
        self.lobby_pings.changed()

    async def adopt_orphans(self) -> list[str]:
        """One orphan pass now (see `Adoption.adopt_orphans`)."""
        return await self.adoption.adopt_orphans()
