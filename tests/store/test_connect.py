"""Redis clients from store URLs (server/store/connect.py): the URLs' parts and their mistakes, and a
client through real sentinels (a primary, its replica, one sentinel of this module's own) that finds
the primary, saves with WAIT, and follows the primary through a failover, its held-out pipeline
connections too."""

from __future__ import annotations

import ast
import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.asyncio.cluster import RedisCluster

from server.cluster.processes import PrivateRedis, PrivateSentinel, wait_until
from server.store import VersionConflictError, open_store
from server.store.connect import (
    DEFAULT_REDIS_PORT,
    DEFAULT_SENTINEL_PORT,
    SentinelRedis,
    StoreUrlError,
    is_redis_url,
    on_old_primary,
    parse_redis_url,
    redis_client,
    split_store_url,
)
from server.store.redis import RedisStore

SERVICE = "whist-test"


def test_a_sentinel_url_names_its_sentinels_service_and_options() -> None:
    address = parse_redis_url("redis+sentinel://10.0.0.1:26380,10.0.0.2,[::1]:26381/games?db=3&prefix=p:")
    assert address.sentinel
    assert address.sentinels == (("10.0.0.1", 26380), ("10.0.0.2", DEFAULT_SENTINEL_PORT), ("::1", 26381))
    assert (address.service, address.db, address.prefix) == ("games", 3, "p:")
    assert (address.wait, address.wait_ms) == (1, 500), "Sentinel waits for one replica by default"
    off = parse_redis_url("redis+sentinel://h:1/s?wait=0")
    assert off.wait == 0 and off.prefix == "whist:" and off.db == 0
    asked = parse_redis_url("redis+sentinel://h:1/s?wait=2&wait_ms=50")
    assert (asked.wait, asked.wait_ms) == (2, 50)


def test_one_redis_waits_only_when_asked_and_redis_py_never_sees_our_options() -> None:
    plain = parse_redis_url("redis://h:6380/2?prefix=x:")
    assert not plain.sentinel and (plain.wait, plain.db, plain.prefix) == (0, 2, "x:")
    assert plain.plain_url == "redis://h:6380/2"
    asked = parse_redis_url("redis://h:6380/0?wait=1&wait_ms=100&prefix=y:&socket_timeout=3")
    assert (asked.wait, asked.wait_ms) == (1, 100)
    assert asked.plain_url == "redis://h:6380/0?socket_timeout=3"
    assert split_store_url("redis://h:1/0?wait=1&prefix=z:") == ("redis://h:1/0", "z:")


@pytest.mark.parametrize(("url", "complaint"), [
    ("redis+sentinel:///whist", "names no sentinel"),
    ("redis+sentinel://h:26379", "names no service"),
    ("redis+sentinel://h:26379/", "names no service"),
    ("redis+sentinel://h:26379/a/b", "names no service"),
    ("redis+sentinel://h:port/whist", "bad port"),
    ("redis+sentinel://h:70000/whist", "bad port"),
    ("redis+sentinel://h:1,,h:2/whist", "empty sentinel address"),
    ("redis+sentinel://:1/whist", "no host"),
    ("redis+sentinel://u:secret@h:1/whist", "passwords"),
    ("redis+sentinel://h:1/whist?db=x", "not a whole number"),
    ("redis+sentinel://h:1/whist?wait=-1", "negative"),
    ("redis+sentinel://h:1/whist?colour=blue", "unknown option"),
    ("redis://h:1/0?wait_ms=soon", "not a whole number"),
    ("redis:///0", "names no host"),
    ("redis://h:1/zero", "not a number"),
    ("mongodb://h:1/whist", "unknown Redis URL"),
    ("redis-cluster://", "names no node"),
    ("redis-cluster://h:1,,h:2", "empty node address"),
    ("redis-cluster://h:port", "bad port"),
    ("redis-cluster://u:secret@h:1", "passwords"),
    ("redis-cluster://h:1/3", "one database"),
    ("redis-cluster://h:1?wait=-1", "negative"),
    ("redis-cluster://h:1?db=2", "unknown option"),
])
def test_a_bad_url_is_refused_with_what_is_wrong(url: str, complaint: str) -> None:
    with pytest.raises(StoreUrlError, match=complaint):
        parse_redis_url(url)


def test_a_cluster_url_names_its_startup_nodes_and_waits_for_one_replica_by_default() -> None:
    address = parse_redis_url("redis-cluster://10.0.0.1:7000,10.0.0.2,[::1]:7002?prefix=p:")
    assert address.cluster and not address.sentinel
    assert address.nodes == (("10.0.0.1", 7000), ("10.0.0.2", DEFAULT_REDIS_PORT), ("::1", 7002))
    assert (address.prefix, address.db, address.wait, address.wait_ms) == ("p:", 0, 1, 500)
    asked = parse_redis_url("redis-cluster://h:1?wait=0&wait_ms=50")
    assert (asked.wait, asked.wait_ms, asked.prefix) == (0, 50, "whist:")
    assert not parse_redis_url("redis://h:1/0").cluster
    assert is_redis_url("redis-cluster://h:1")
    assert isinstance(redis_client(address, decode_responses=True, max_connections=2, pool_timeout=1),
                      RedisCluster), "connects lazily"


def test_open_store_knows_the_sentinel_scheme_and_refuses_others() -> None:
    assert isinstance(open_store("redis+sentinel://127.0.0.1:1/whist"), RedisStore)  # connects lazily
    with pytest.raises(ValueError, match="redis\\+sentinel://"):
        open_store("etcd://h:1/")


class Topology:
    """A primary, its replica and one sentinel (quorum 1), on free ports under `directory`."""

    def __init__(self, directory: Path) -> None:
        settings = ["min-replicas-to-write 1", "min-replicas-max-lag 5"]
        self.primary = PrivateRedis(directory / "primary", settings=settings)
        self.replica = PrivateRedis(directory / "replica", replica_of=self.primary.port, settings=settings)
        self.sentinel = PrivateSentinel(directory / "sentinel", self.primary.port, SERVICE, quorum=1,
                                        down_after_ms=1000, failover_timeout_ms=3000)
        self.url = f"redis+sentinel://127.0.0.1:{self.sentinel.port}/{SERVICE}"

    def start(self) -> None:
        self.primary.start()
        self.replica.start()
        wait_until(lambda: self.replica.info().get("master_link_status") == "up", 60, "replica in step")
        # The primary counts the replica only after its first acknowledgement (up to a second after the
        # replica's link is up): until then every write is refused with NOREPLICAS.
        wait_until(lambda: int(self.primary.info().get("min_slaves_good_slaves", 0)) >= 1, 60,
                   "the primary counts the replica as good")
        self.sentinel.start()
        wait_until(lambda: self.sentinel.sees(1, 0), 60, "the sentinel sees the replica")

    def stop(self) -> None:
        self.sentinel.stop()
        self.replica.stop()
        self.primary.stop()


@pytest.fixture(scope="module")
def topology(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Topology]:
    running = Topology(tmp_path_factory.mktemp("sentinel"))
    try:
        running.start()
        yield running
    finally:
        running.stop()


async def test_a_client_through_the_sentinels_finds_the_primary(topology: Topology) -> None:
    client = redis_client(topology.url + "?prefix=t:", decode_responses=True, max_connections=4,
                          pool_timeout=5)
    try:
        assert isinstance(client, SentinelRedis)
        _, port = topology.sentinel.primary() or ("", 0)
        assert await client.set("connect-test", "1")
        role = await client.execute_command("ROLE")
        assert role[0] == "master"
        assert int((await client.info("server"))["tcp_port"]) == port
    finally:
        await client.aclose()


async def _saved(store: RedisStore, room: str, version: int, deadline: float) -> int:
    """Save version `version` + 1 of `room`, trying again while the store does not answer. A try
    refused after it ran (no replica confirmed it in time: the old primary still syncing as a replica,
    or its answer lost) may have landed: then the next try finds the version taken by its own entry,
    and the save is done once the replicas hold it."""
    while True:
        try:
            return await store.save(room, {"n": version}, version, [{"v": version}], None)
        except VersionConflictError as conflict:
            log = await store.read_log(room)
            if conflict.found != version + 1 or log[-1:] != [{"v": version}]:
                raise
            while not await store.replicated():
                assert time.monotonic() < deadline, "the replicas never confirmed the save"
                await asyncio.sleep(0.2)
            return version + 1
        except Exception:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def test_the_store_waits_for_the_replica_and_follows_a_failover(topology: Topology) -> None:
    store = RedisStore(topology.url + "?prefix=failover:")
    try:
        assert store.wait_replicas == 1
        # On a loaded machine the replica may miss the first WAIT's 500 ms: refused, then confirmed.
        assert await _saved(store, "room", 0, time.monotonic() + 60) == 1
        assert await store.replicated()
        old = topology.sentinel.primary()
        # A failover on demand: the sentinel promotes the replica and demotes the old primary (whose
        # clients it disconnects); the store's held-out pipeline connection must move too.
        def failover() -> bool:  # refused (NOGOODSLAVE) until the sentinel has heard the replica's INFO
            topology.sentinel.ask_failover()
            return True

        await asyncio.to_thread(wait_until, failover, 60, "a failover accepted")
        await asyncio.to_thread(wait_until, lambda: topology.sentinel.primary() not in (None, old), 60,
                                "a new primary")
        new = topology.sentinel.primary()
        assert new is not None
        deadline = time.monotonic() + 60
        assert await _saved(store, "room", 1, deadline) == 2
        stored = await store.load("room")
        assert stored is not None and stored.version == 2
        assert await store.read_log("room") == [{"v": 0}, {"v": 1}]
        held = [connection.port for connection in store._saves._idle if connection.is_connected]
        assert held and set(held) == {new[1]}, f"pipeline connections on {held}, primary on {new}"
        # The demoted primary rejoined as a replica, so WAIT still finds one.
        await asyncio.to_thread(wait_until, lambda: topology.sentinel.sees(1, 0), 60, "a replica again")
        assert await _saved(store, "room", 2, time.monotonic() + 60) == 3
    finally:
        await store.delete_everything()
        await store.close()


async def test_a_connection_elsewhere_than_the_named_primary_is_told_apart(topology: Topology) -> None:
    # The fan-out subscriber holds its connection for good: it asks this every few seconds, so that
    # a primary replaced without its sockets closing does not leave it deaf.
    client = redis_client(topology.url, decode_responses=False, max_connections=4, pool_timeout=5)
    try:
        primary = topology.sentinel.primary()
        assert primary is not None
        on_primary = await client.connection_pool.get_connection()
        try:
            assert (on_primary.host, on_primary.port) == primary
            assert not await on_old_primary(client, on_primary)
            elsewhere = [node for node in (topology.primary, topology.replica) if node.port != primary[1]]
            await on_primary.disconnect()
            await on_primary.connect_to(("127.0.0.1", elsewhere[0].port))  # as if the primary moved
            assert await on_old_primary(client, on_primary)
        finally:
            await client.connection_pool.release(on_primary)
    finally:
        await client.aclose()
    plain = redis_client(topology.primary.url, decode_responses=False, max_connections=2, pool_timeout=5)
    try:
        connection = await plain.connection_pool.get_connection()
        assert not await on_old_primary(plain, connection), "one Redis: never"
        await plain.connection_pool.release(connection)
    finally:
        await plain.aclose()


def test_no_module_of_the_server_builds_a_redis_client_but_this_one() -> None:
    # Every Redis client of a server process must follow the primary on Sentinel: one made elsewhere (a
    # pool from a URL, a client on a host and port) would keep talking to a dead or demoted primary.
    # (The cluster launcher asks its own Redis processes and sentinels directly: it is no server.)
    server = Path(__file__).resolve().parents[2] / "server"
    makers = {"Redis", "StrictRedis", "Sentinel", "ConnectionPool", "BlockingConnectionPool",
              "SentinelConnectionPool", "from_url", "from_pool", "master_for"}
    found = []
    for path in sorted(server.rglob("*.py")):
        if path.name == "connect.py" or path.relative_to(server).parts[0] == "cluster":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else \
                    node.func.attr if isinstance(node.func, ast.Attribute) else ""
                if name in makers:
                    found.append(f"{path.relative_to(server)}:{node.lineno}: {name}(...)")
    assert found == []
