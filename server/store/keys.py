"""Every Redis key the server uses, in one place. All keys start with the store's prefix.

Every key of one room carries the hash tag `{room:<id>}` (the room hash is `<prefix>{room:<id>}`, its
log `<prefix>{room:<id>}:log`, ...), so that a Redis Cluster keeps a room's keys in one slot (one Lua
script may touch them all) and rooms spread over the shards by id. The keys that a script or a
MULTI uses together (a day's leaderboard and its lines; the process registry and its descriptions)
share a tag too. Before this naming the room's own keys were `<prefix>room:<id>[:log|:players]` and
the leaderboard's `<prefix>leaderboard:<day>[:entries]`, the lobby `<prefix>lobby`: `python -m
server.store.migrate` renames them (server/store/migrate.py)."""

from __future__ import annotations

DEFAULT_PREFIX = "whist:"


class Keys:
    """Key names under one prefix (tests use a unique prefix per run)."""

    def __init__(self, prefix: str = DEFAULT_PREFIX) -> None:
        self.prefix = prefix

    def room(self, room_id: str) -> str:
        """Hash: `version` (int) and `state` (JSON) of one room, and `archived` (int) once a session of it
        is in the archive (the number of the last one: see `Store.retain`). On a Redis Cluster also
        `lobby`: the room's lobby line (JSON, "" for none), of which the `lobby` hash is the index."""
        return self.room_tag(room_id)

    def room_log(self, room_id: str) -> str:
        """List: the room's append-only event log, one JSON entry per item."""
        return f"{self.room_tag(room_id)}:log"

    def room_players(self, room_id: str) -> str:
        """Hash: seat -> the hashed player key its connection gave (`hello`'s `player_key`): whom the
        archive credits each human seat to, known to every process that may archive the room."""
        return f"{self.room_tag(room_id)}:players"

    def room_probe(self, room_id: str) -> str:
        """String (expires): written on the room's shard to ask its replicas (`WAIT`) whether they hold
        everything so far (a Redis Cluster: each shard replicates on its own)."""
        return f"{self.room_tag(room_id)}:probe"

    def room_keys(self, room_id: str) -> list[str]:
        """Every key that holds a room's own data (what `Store.retain` gives an expiry): the room hash,
        its event log, its credited players, its chat."""
        return [self.room(room_id), self.room_log(room_id), self.room_players(room_id),
                self.room_chat(room_id)]

    @property
    def lobby(self) -> str:
        """Hash: room id -> lobby entry (JSON) of every listed, unfinished room."""
        return f"{self.prefix}{{lobby}}"

    @property
    def lobby_versions(self) -> str:
        """Hash (Redis Cluster only): room id -> the room version whose lobby line the `lobby` hash
        holds, so that an older line written late never replaces a newer one. One slot with `lobby`."""
        return f"{self.prefix}{{lobby}}:versions"

    @property
    def rooms(self) -> str:
        """Set: the id of every room."""
        return f"{self.prefix}rooms"

    @property
    def replication_probe(self) -> str:
        """String (expires): written to ask the replicas (`WAIT`) whether they hold everything so far."""
        return f"{self.prefix}replication-probe"

    @property
    def daily_secret(self) -> str:
        """String: the daily challenge's server secret (created once, SET NX)."""
        return f"{self.prefix}daily:secret"

    def leaderboard(self, day: str) -> str:
        """Sorted set: daily room id -> rank key of that day's leaderboard (see server/leaderboard.py)."""
        return f"{self.prefix}{{leaderboard:{day}}}"

    def leaderboard_lines(self, day: str) -> str:
        """Hash: daily room id -> that game's leaderboard line (JSON). One slot with `leaderboard`."""
        return f"{self.prefix}{{leaderboard:{day}}}:entries"

    def daily_player(self, day: str, player: str) -> str:
        """String (with expiry): set once (SET NX) by a player's first daily game of `day`."""
        return f"{self.prefix}daily:{day}:player:{player}"

    def deal_results(self, day: str, deal: str) -> str:
        """Hash (with expiry): daily room id -> that game's result (JSON) of one deal of `day`."""
        return f"{self.prefix}daily:{day}:deal:{deal}"

    # ---- several processes on one Redis (server/coord/).

    def room_tag(self, room_id: str) -> str:
        """The hash-tagged stem of every key of one room (`<prefix>{room:<id>}`)."""
        return f"{self.prefix}{{room:{room_id}}}"

    def room_owner(self, room_id: str) -> str:
        """String (with expiry): the id of the process that owns the room (its lease)."""
        return f"{self.room_tag(room_id)}:owner"

    def room_changes(self, room_id: str) -> str:
        """Pub/sub channel: the room's committed changes (msgpack envelopes, see coord/fanout.py)."""
        return f"{self.room_tag(room_id)}:changes"

    def room_presence(self, room_id: str) -> str:
        """Sorted set: `<seat>@<process id>` -> expiry (Redis clock, ms) of a live connection there."""
        return f"{self.room_tag(room_id)}:presence"

    def room_chat(self, room_id: str) -> str:
        """List: the room's last chat lines (JSON), oldest first (see Store.append_chat)."""
        return f"{self.room_tag(room_id)}:chat"

    @property
    def room_owners(self) -> str:
        """Hash: room id -> the process that last took the room's lease, until the room ends (how the
        rooms of a dead owner are found when no process holds them: see coord/owners.py)."""
        return f"{self.prefix}room_owners"

    @property
    def processes(self) -> str:
        """Sorted set: process id -> expiry (Redis clock, ms) of its last heartbeat."""
        return f"{self.prefix}{{processes}}"

    def process_info(self, process_id: str) -> str:
        """String (with expiry): one process's description (JSON: pid, replica, started). One slot
        with `processes` (the heartbeat's script writes both)."""
        return f"{self.prefix}{{processes}}:{process_id}"

    def process_inbox(self, process_id: str) -> str:
        """Pub/sub channel: messages addressed to one process (keeps its subscriber connected)."""
        return f"{self.prefix}{{processes}}:{process_id}:inbox"

    def pattern(self) -> str:
        """A SCAN pattern matching every key under this prefix (used by tests to clean up)."""
        return f"{self.prefix}*"
