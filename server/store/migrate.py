"""`python -m server.store.migrate --from URL [--to URL] [--dry-run]`: the keys of a store written before
every key of a room carried its hash tag (server/store/keys.py), under their current names.

    <prefix>room:<id>               -> <prefix>{room:<id>}             (the room hash)
    <prefix>room:<id>:log           -> <prefix>{room:<id>}:log
    <prefix>room:<id>:players       -> <prefix>{room:<id>}:players
    <prefix>lobby                   -> <prefix>{lobby}
    <prefix>leaderboard:<day>       -> <prefix>{leaderboard:<day>}
    <prefix>leaderboard:<day>:entries -> <prefix>{leaderboard:<day>}:entries

Without `--to` (or `--to` the same URL), on one Redis: each key is renamed in place (`RENAME`: atomic,
keeps its expiry). With `--to` another store (a Redis Cluster, or another Redis), every key of the
store's prefix is copied there under its new name (`DUMP`/`PTTL` there, `RESTORE` here, expiry kept),
except the coordination's short-lived keys (leases, presence, the process registry: the new processes
write their own); on a Redis Cluster each room hash also gets its lobby line (`lobby`, as the cluster's
save script keeps it) and the lobby index its versions. A key already under its new name is left as it
is (a migration run twice does nothing the second time); a new name that exists already at the
destination is not overwritten (reported). Run it with every server process stopped.

`python -m server.store.migrate --reindex redis-cluster://...` rebuilds a Redis Cluster's global
indexes from the rooms themselves (their hashes hold the truth there): every room hash without an
expiry (not retained after its archiving) in the `rooms` set, and each room's own lobby line (its
`lobby` field) in the lobby index, version-guarded as the saves write it. For an index that a process
which died between a save and its index write left behind (docs/scaling.md, "Redis Cluster"); safe
while servers run (a newer line written meanwhile wins).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .cluster_saves import index_room
from .connect import parse_redis_url, redis_client
from .keys import Keys

# Old name (after the prefix) -> new name; the first pattern that matches wins.
_RENAMES = [
    (re.compile(r"^room:(?P<id>[^{}:]+)$"), "{{room:{id}}}"),
    (re.compile(r"^room:(?P<id>[^{}:]+):log$"), "{{room:{id}}}:log"),
    (re.compile(r"^room:(?P<id>[^{}:]+):players$"), "{{room:{id}}}:players"),
    (re.compile(r"^lobby$"), "{{lobby}}"),
    (re.compile(r"^leaderboard:(?P<id>[^{}:]+)$"), "{{leaderboard:{id}}}"),
    (re.compile(r"^leaderboard:(?P<id>[^{}:]+):entries$"), "{{leaderboard:{id}}}:entries"),
]
# Short-lived coordination keys (after the prefix), not copied to another store.
_TRANSIENT = re.compile(r"^(\{room:[^}]+\}:(owner|presence|probe)|processes|process:.*|\{processes\}.*"
                        r"|replication-probe)$")


def new_name(key: str, prefix: str) -> str | None:
    """The current name of a key written under an older name (None: its name is current)."""
    if not key.startswith(prefix):
        return None
    rest = key[len(prefix):]
    for pattern, template in _RENAMES:
        found = pattern.match(rest)
        if found:
            return prefix + template.format(**found.groupdict())
    return None


def transient(key: str, prefix: str) -> bool:
    """Whether a key is the coordination's own, short-lived (a new process writes its own)."""
    return key.startswith(prefix) and bool(_TRANSIENT.match(key[len(prefix):]))


@dataclass
class Report:
    """What a migration did (or, with `dry_run`, would do)."""

    renamed: list[tuple[str, str]] = field(default_factory=list)  # (old, new)
    copied: int = 0
    skipped: list[str] = field(default_factory=list)  # transient keys not copied
    clashes: list[str] = field(default_factory=list)  # new names that existed already: left alone

    def summary(self) -> str:
        """One line for the operator."""
        return (f"{len(self.renamed)} renamed, {self.copied} copied, {len(self.skipped)} transient keys "
                f"skipped, {len(self.clashes)} left alone (their new name exists already)")


async def migrate(source_url: str, target_url: str | None = None, dry_run: bool = False) -> Report:
    """Rename in place (`target_url` None or the same), or copy to `target_url` (see the module
    docstring). The prefix is the source URL's (`?prefix=`); the target's must be the same."""
    source_address = parse_redis_url(source_url)
    if source_address.cluster:
        raise ValueError("the source of a migration is one Redis (the keys of a cluster are current)")
    prefix = source_address.prefix
    in_place = target_url is None or target_url == source_url
    if not in_place and parse_redis_url(str(target_url)).prefix != prefix:
        raise ValueError("the source and the target must use the same prefix")
    source = redis_client(source_address, decode_responses=False, max_connections=4, pool_timeout=10)
    target = source if in_place else redis_client(str(target_url), decode_responses=False,
                                                  max_connections=4, pool_timeout=10)
    report = Report()
    try:
        keys = sorted([key.decode() async for key in source.scan_iter(match=f"{prefix}*", count=500)])
        for key in keys:
            renamed = new_name(key, prefix)
            if in_place:
                if renamed is None:
                    continue
                if await source.exists(renamed):
                    report.clashes.append(renamed)
                elif not dry_run:
                    await source.rename(key, renamed)
                    report.renamed.append((key, renamed))
                else:
                    report.renamed.append((key, renamed))
                continue
            if transient(key, prefix):
                report.skipped.append(key)
                continue
            await _copy(source, target, key, renamed or key, report, dry_run)
        if not in_place and parse_redis_url(str(target_url)).cluster and not dry_run:
            await _index_lobby(target, Keys(prefix))
    finally:
        await source.aclose()
        if target is not source:
            await target.aclose()
    return report


async def _copy(source: Any, target: Any, key: str, name: str, report: Report, dry_run: bool) -> None:
    if await target.exists(name):
        report.clashes.append(name)
        return
    if name != key:
        report.renamed.append((key, name))
    report.copied += 1
    if dry_run:
        return
    dumped = await source.dump(key)
    if dumped is None:  # expired meanwhile
        report.copied -= 1
        return
    ttl = int(await source.pttl(key))
    await target.restore(name, max(ttl, 0), dumped)


async def _index_lobby(target: Any, keys: Keys) -> None:
    """On a Redis Cluster: each listed room's lobby line in its room hash (where the cluster's save
    script compares it) and the version of each line in the lobby index's versions."""
    lines: dict[bytes, bytes] = await target.hgetall(keys.lobby)
    for raw_room, line in lines.items():
        room_id = raw_room.decode()
        version = await target.hget(keys.room(room_id), "version")
        await target.hset(keys.room(room_id), "lobby", line)
        await target.hset(keys.lobby_versions, room_id, int(version or 0))


async def reindex(url: str) -> dict[str, int]:
    """Rebuild a Redis Cluster's `rooms` set and lobby index from the room hashes (see the module
    docstring): how many rooms were found, put in the rooms set, and given their lobby line."""
    address = parse_redis_url(url)
    if not address.cluster:
        raise ValueError("--reindex is for a Redis Cluster (on one Redis the save writes the indexes itself)")
    keys = Keys(address.prefix)
    head = keys.room_tag("")[:-1]  # `<prefix>{room:`
    client = redis_client(address, decode_responses=True, max_connections=4, pool_timeout=10)
    counts = {"rooms": 0, "indexed": 0, "listed": 0}
    try:
        async for key in client.scan_iter(match=f"{head}*", count=500, _type="HASH"):
            if not key.endswith("}") or "}" in key[len(head):-1]:
                continue  # a room's other hashes (`...}:players`)
            found = await index_room(client, keys, key[len(head):-1])
            if found is None:
                continue
            indexed, listed = found
            counts["rooms"] += 1
            counts["indexed"] += indexed
            counts["listed"] += listed
    finally:
        await client.aclose()
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    """The command line."""
    parser = argparse.ArgumentParser(prog="python -m server.store.migrate",
                                     description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--from", dest="source", default=None, metavar="URL",
                        help="the store written under the old names: redis://HOST:PORT/DB[?prefix=P]")
    parser.add_argument("--to", dest="target", default=None, metavar="URL",
                        help="copy there (e.g. redis-cluster://HOST:PORT,...) instead of renaming in place")
    parser.add_argument("--dry-run", action="store_true", help="say what would be done, change nothing")
    parser.add_argument("--reindex", default=None, metavar="URL",
                        help="rebuild a Redis Cluster's rooms set and lobby index from its rooms")
    args = parser.parse_args(argv)
    if args.reindex is not None:
        print(json.dumps(asyncio.run(reindex(args.reindex))))
        return 0
    if args.source is None:
        parser.error("--from URL (or --reindex URL) is required")
    report = asyncio.run(migrate(args.source, args.target, args.dry_run))
    print(json.dumps({"summary": report.summary(), "renamed": len(report.renamed), "copied": report.copied,
                      "clashes": report.clashes, "dry_run": args.dry_run}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
