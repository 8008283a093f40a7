"""Every Redis client of a server process is built here, from its store URL:

    redis://HOST:PORT/DB[?prefix=P][&wait=N&wait_ms=MS]          one Redis (or unix://, rediss://)
    redis+sentinel://HOST:PORT[,HOST:PORT...]/SERVICE[?db=N&prefix=P&wait=N&wait_ms=MS]
    redis-cluster://HOST:PORT[,HOST:PORT...][?prefix=P&wait=N&wait_ms=MS]       a Redis Cluster

With Sentinel, a connection asks the sentinels for the service's primary each time it (re)connects,
and a connection that finds itself on a server that is no primary any more (`READONLY`), or on a
primary that refuses writes because it lost its replicas (`NOREPLICAS`, `MASTERDOWN`), is dropped
and raises `ConnectionError`: the next command connects to whatever the sentinels name then. The
store, the coordination (leases, presence, fan-out, registry, owner book) and the `LeanPipeline`s on
their pools all use clients made by `redis_client`, so none keeps talking to a demoted primary.

On a Redis Cluster the nodes named are where the client first asks for the slot map (any live one
will do); a command goes to the primary of its key's slot, and a MOVED answer or a lost node makes the
client ask for the map again (redis-py's `RedisCluster`; the lean pipelines, server/store/sharded.py,
and the sharded pub/sub subscriber, server/coord/sharded_fanout.py, do the same for their own
connections). A cluster client's per-node pool does not wait for a free connection: at
`max_connections` in use on one node, a command fails (`MaxConnectionsError`).

`wait` (default 1 on Sentinel and Cluster, 0 otherwise): after each save the store sends `WAIT <wait>
<wait_ms>` and refuses the action when fewer replicas confirmed it (server/store/redis.py). On a
Cluster, a shard whose primary has fewer replicas attached than `wait` (its replica was promoted
after a failover, and nothing replaced it yet) is asked for as many as it has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import ClusterNode, RedisCluster
from redis.asyncio.sentinel import Sentinel, SentinelConnectionPool, SentinelManagedConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ReadOnlyError, ResponseError

from .keys import DEFAULT_PREFIX

SENTINEL_SCHEME = "redis+sentinel"
CLUSTER_SCHEME = "redis-cluster"
PLAIN_SCHEMES = ("redis", "rediss", "unix")
DEFAULT_SENTINEL_PORT = 26379
DEFAULT_REDIS_PORT = 6379
DEFAULT_WAIT_MS = 500
# Error replies that say "this server takes no writes from you now" (besides READONLY, which redis-py
# reads as `ReadOnlyError`): on Sentinel, the next connection should ask the sentinels again.
NOT_A_PRIMARY = ("NOREPLICAS", "MASTERDOWN")


class StoreUrlError(ValueError):
    """A store URL that names no Redis this module can reach."""


@dataclass(frozen=True, slots=True)
class RedisAddress:
    """A parsed Redis store URL."""

    url: str  # as given
    sentinels: tuple[tuple[str, int], ...]  # empty for one Redis
    service: str  # the Sentinel service (master name); "" for one Redis
    db: int
    prefix: str
    wait: int  # replicas a save must reach (0: no WAIT)
    wait_ms: int
    plain_url: str  # for one Redis: the URL for redis-py (our options removed); "" on Sentinel
    nodes: tuple[tuple[str, int], ...] = ()  # a Redis Cluster's startup nodes; empty otherwise

    @property
    def sentinel(self) -> bool:
        """Whether the primary is found through sentinels."""
        return bool(self.sentinels)

    @property
    def cluster(self) -> bool:
        """Whether this is a Redis Cluster (keys spread over shards by hash slot)."""
        return bool(self.nodes)


def _int_option(query: dict[str, list[str]], name: str, default: int, url: str) -> int:
    values = query.pop(name, None)
    if not values:
        return default
    try:
        value = int(values[-1])
    except ValueError:
        raise StoreUrlError(f"{name}={values[-1]!r} in {url!r} is not a whole number") from None
    if value < 0:
        raise StoreUrlError(f"{name}={value} in {url!r} is negative")
    return value


def _host_port(item: str, url: str, default_port: int = DEFAULT_SENTINEL_PORT, what: str = "sentinel"
               ) -> tuple[str, int]:
    if not item:
        raise StoreUrlError(f"an empty {what} address in {url!r}")
    if item.startswith("["):  # [IPv6]:port
        host, _, rest = item[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port_text = item.rpartition(":") if ":" in item else (item, "", "")
    if not host:
        raise StoreUrlError(f"{what} address {item!r} in {url!r} has no host")
    try:
        port = int(port_text) if port_text else default_port
    except ValueError:
        raise StoreUrlError(f"{what} address {item!r} in {url!r} has a bad port") from None
    if not 0 < port < 65536:
        raise StoreUrlError(f"{what} address {item!r} in {url!r} has a bad port")
    return host, port


def parse_redis_url(url: str) -> RedisAddress:
    """The parts of a store URL (see the module docstring); `StoreUrlError` if it is not one."""
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    prefix = query.pop("prefix", [DEFAULT_PREFIX])[-1]
    if parts.scheme == SENTINEL_SCHEME:
        if not parts.netloc:
            raise StoreUrlError(f"{url!r} names no sentinel: redis+sentinel://HOST:PORT[,HOST:PORT]/SERVICE")
        if "@" in parts.netloc:
            raise StoreUrlError(f"{url!r}: passwords in a sentinel URL are not supported")
        sentinels = tuple(_host_port(item.strip(), url) for item in parts.netloc.split(","))
        service = parts.path.strip("/")
        if not service or "/" in service:
            raise StoreUrlError(f"{url!r} names no service: redis+sentinel://HOST:PORT/SERVICE")
        db = _int_option(query, "db", 0, url)
        wait = _int_option(query, "wait", 1, url)
        wait_ms = _int_option(query, "wait_ms", DEFAULT_WAIT_MS, url)
        if query:
            raise StoreUrlError(f"unknown option(s) {sorted(query)} in {url!r}")
        return RedisAddress(url, sentinels, service, db, prefix, wait, wait_ms, "")
    if parts.scheme == CLUSTER_SCHEME:
        if not parts.netloc:
            raise StoreUrlError(f"{url!r} names no node: redis-cluster://HOST:PORT[,HOST:PORT...]")
        if "@" in parts.netloc:
            raise StoreUrlError(f"{url!r}: passwords in a cluster URL are not supported")
        if parts.path.strip("/"):
            raise StoreUrlError(f"{url!r}: a Redis Cluster has one database (no /DB)")
        nodes = tuple(_host_port(item.strip(), url, DEFAULT_REDIS_PORT, "node")
                      for item in parts.netloc.split(","))
        wait = _int_option(query, "wait", 1, url)
        wait_ms = _int_option(query, "wait_ms", DEFAULT_WAIT_MS, url)
        if query:
            raise StoreUrlError(f"unknown option(s) {sorted(query)} in {url!r}")
        return RedisAddress(url, (), "", 0, prefix, wait, wait_ms, "", nodes)
    if parts.scheme in PLAIN_SCHEMES:
        if parts.scheme != "unix" and not parts.hostname:
            raise StoreUrlError(f"{url!r} names no host")
        wait = _int_option(query, "wait", 0, url)
        wait_ms = _int_option(query, "wait_ms", DEFAULT_WAIT_MS, url)
        plain = urlunsplit(parts._replace(query=urlencode(query, doseq=True)))
        db_text = (query.get("db", ["0"]) if parts.scheme == "unix" else [parts.path.strip("/") or "0"])[-1]
        try:
            db = int(db_text)
        except ValueError:
            raise StoreUrlError(f"database {db_text!r} in {url!r} is not a number") from None
        return RedisAddress(url, (), "", db, prefix, wait, wait_ms, plain)
    raise StoreUrlError(f"unknown Redis URL {url!r}: use redis://HOST:PORT/DB, "
                        "redis+sentinel://HOST:PORT[,HOST:PORT...]/SERVICE or "
                        "redis-cluster://HOST:PORT[,HOST:PORT...]")


def is_redis_url(url: str) -> bool:
    """Whether `url` names a Redis (one, through sentinels, or a cluster)."""
    return urlsplit(url).scheme in (*PLAIN_SCHEMES, SENTINEL_SCHEME, CLUSTER_SCHEME)


def refuses_writes(error: ResponseError) -> bool:
    """Whether an error reply says the server takes no writes now: a replica (a demoted primary:
    `READONLY`), a primary cut off from its replicas (`NOREPLICAS`), a replica that lost its primary
    (`MASTERDOWN`). A connection that got one is given up, so the next one connects again (through
    the sentinels, to the primary they name then)."""
    return isinstance(error, ReadOnlyError) or str(error).startswith(NOT_A_PRIMARY)


class PrimaryConnection(SentinelManagedConnection):
    """A connection to the Sentinel service's primary that gives up a server which takes no writes any
    more: redis-py drops it on `READONLY` already; here `NOREPLICAS` and `MASTERDOWN` too (a primary
    cut off from its replicas, or a replica that lost its primary), so that the next connection asks
    the sentinels again."""

    async def read_response(self, *args: Any, **kwargs: Any) -> Any:
        """As redis-py's, with the replies above turned into a dropped connection."""
        try:
            return await super().read_response(*args, **kwargs)
        except ResponseError as error:
            if refuses_writes(error):
                await self.disconnect()
                raise RedisConnectionError(f"not a usable primary: {error}") from error
            raise


class BlockingSentinelConnectionPool(SentinelConnectionPool, BlockingConnectionPool):
    """The Sentinel pool (finds the primary) that waits for a free connection, as the store's and the
    coordination's pools do, instead of raising when all are in use."""


class SentinelRedis(Redis):
    """The client of a Sentinel service's primary; closing it closes its sentinels' clients too."""

    sentinels: Sentinel | None = None

    async def aclose(self, close_connection_pool: bool | None = None) -> None:
        """Close the client, its pool and the sentinels' connections."""
        await super().aclose(close_connection_pool)
        if self.sentinels is not None:
            await self.sentinels.aclose()


# What `redis_client` returns: one Redis (or the Sentinel service's primary), or a cluster's client.
RedisClient = Redis | RedisCluster


def redis_client(url: str | RedisAddress, *, decode_responses: bool, max_connections: int,
                 pool_timeout: float | None, socket_timeout: float | None = None,
                 socket_connect_timeout: float | None = None) -> Any:
    """A client on a blocking pool (at most `max_connections`, a command waits up to `pool_timeout`
    for a free one): of the one Redis, or of the Sentinel service's primary (followed across
    failovers), or of a Redis Cluster (`RedisCluster`: at most `max_connections` per node, and no
    waiting for a free one). Closing the client closes its pool. Typed `Any`: a `Redis` or a
    `RedisCluster` (`RedisClient`), which take the same commands."""
    address = url if isinstance(url, RedisAddress) else parse_redis_url(url)
    options: dict[str, Any] = {"decode_responses": decode_responses, "socket_timeout": socket_timeout,
                               "socket_connect_timeout": socket_connect_timeout}
    if address.cluster:
        # Not `require_full_coverage`: while one shard has no primary (a failover under way), the
        # client keeps serving the others' slots.
        return RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in address.nodes],
                            max_connections=max_connections, require_full_coverage=False, **options)
    if not address.sentinel:
        pool = BlockingConnectionPool.from_url(address.plain_url, max_connections=max_connections,
                                               timeout=pool_timeout, **options)
        return Redis.from_pool(pool)
    # The sentinels answer small questions: short timeouts so that a dead one is skipped quickly.
    sentinels = Sentinel(
        list(address.sentinels), sentinel_kwargs={"socket_timeout": 2.0, "socket_connect_timeout": 2.0})
    pool = BlockingSentinelConnectionPool(  # type: ignore[no-untyped-call]
        address.service, sentinels, connection_class=PrimaryConnection, max_connections=max_connections,
        timeout=pool_timeout, db=address.db, **options)
    client = SentinelRedis(connection_pool=pool)
    client.auto_close_connection_pool = True  # as `Redis.from_pool`: closing the client closes its pool
    client.sentinels = sentinels
    return client


def cluster_node_connection(node: ClusterNode) -> Any:
    """A connection of its own to one node of a cluster (made as the node's pool makes its own, not
    taken from it): for a subscriber, which holds its connection for good (coord/sharded_fanout.py)."""
    return node.connection_class(**node.connection_kwargs)


async def on_old_primary(client: Any, connection: Any) -> bool:
    """Whether `connection` (one of `client`'s, e.g. a pub/sub subscriber's, which holds its connection
    for good) is connected somewhere else than the primary the sentinels name now. Always False for
    one Redis, or when the sentinels do not answer (a failover under way: ask again later). A
    connection to a primary that was replaced without its sockets closing (cut off from the sentinels
    by the network) would otherwise hear nothing more, ever."""
    pool = getattr(client, "connection_pool", None)  # a cluster's client has none
    if not isinstance(pool, SentinelConnectionPool) or connection is None or not connection.is_connected:
        return False
    try:
        host, port = await pool.get_master_address()  # type: ignore[no-untyped-call]
    except Exception:
        return False
    return (str(connection.host), int(connection.port)) != (str(host), int(port))


def split_store_url(url: str) -> tuple[str, str]:
    """`redis://host:port/db?prefix=p` -> (the URL without `prefix`, the prefix). Kept for callers
    that want one Redis's plain URL; a Sentinel URL comes back whole, without its prefix."""
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    prefix = query.pop("prefix", [DEFAULT_PREFIX])[-1]
    if parts.scheme != SENTINEL_SCHEME:
        query.pop("wait", None)
        query.pop("wait_ms", None)
    return urlunsplit(parts._replace(query=urlencode(query, doseq=True))), prefix
