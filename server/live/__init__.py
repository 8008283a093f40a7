"""The live table layer: rooms served by this process (`LiveRoom`), the listeners of their committed
changes (outbox, bot driver, grace timers, lobby; with several processes on one store, the pieces
`SharedRooms` wires: ownership, following, presence, publishing, lobby pings, adoption), the room
registry, and the requests (`Tables`, which take the layer's own `NewRoom`)."""

from .bots import BOT_SLOTS, BotDriver, BotScheduler
from .change import CommittedChange
from .lobby import Lobby
from .new_room import NewRoom, SessionSpan
from .outbox import Outbox, filter_for_recipient
from .registry import RoomRegistry
from .room import LiveRoom, Member, RoomListener
from .tables import Tables
from .timers import GraceTimers

__all__ = [
    "BOT_SLOTS", "BotDriver", "BotScheduler", "CommittedChange", "GraceTimers", "LiveRoom", "Lobby", "Member",
    "NewRoom", "Outbox", "RoomListener", "RoomRegistry", "SessionSpan", "Tables", "filter_for_recipient",
]
