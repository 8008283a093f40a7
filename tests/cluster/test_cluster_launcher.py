"""The cluster launcher (server/cluster/): a private Redis, two replicas and HAProxy, through which
HTTP and WebSocket reach the replicas; failures on purpose; the command line and its SIGTERM."""

from __future__ import annotations

import asyncio
import json
import resource
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.bots import get_bot
from server.client import WhistClient, room_url
from server.cluster import Backend, Cluster, compose_config, render_config
from server.cluster.__main__ import archive_args
from server.cluster.haproxy import machine_maxconn, open_file_limit
from server.cluster.launcher import agreed_status
from server.cluster.processes import HAPROXY, free_port, http_json, pid_alive, wait_until
from server.fd_limits import DESCRIPTOR_CAP
from server.store.keys import Keys

ROOT = Path(__file__).resolve().parents[2]
RANDOM = get_bot("random")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """Two replicas (bots act at once) behind HAProxy, on a private Redis."""
    with Cluster(replicas=2, server_args=["--bot-delay", "0", "--log-level", "warning"]) as running:
        yield running


def replicas_reached(cluster: Cluster, requests: int = 12) -> dict[str, int]:
    """replica id -> pid, over a few /health requests through the balancer."""
    seen: dict[str, int] = {}
    for _ in range(requests):
        status, report = http_json(cluster.url + "health")
        assert status == 200, report
        seen[report["replica"]] = report["pid"]
    return seen


def test_health_through_the_balancer_reaches_both_replicas(cluster: Cluster) -> None:
    seen = replicas_reached(cluster)
    assert seen == cluster.server_pids() and set(seen) == {"r1", "r2"}
    for replica in cluster.replicas:
        report = replica.health()
        assert report["replica"] == replica.replica_id and report["pid"] == replica.pid
        assert report["store"] == "redis" and report["status"] == "ok"
    status = cluster.balancer_status()
    assert set(status) == {"r1", "r2"} and all(value.startswith("UP") for value in status.values()), status


def test_requests_that_name_a_room_always_reach_its_replica_and_rooms_spread_over_replicas(
    cluster: Cluster,
) -> None:
    homes: dict[str, str] = {}
    for number in range(24):
        room = f"room{number}"
        answers = {http_json(f"{cluster.url}health?room={room}")[1]["replica"] for _ in range(4)}
        assert len(answers) == 1, f"{room} reached {answers}"
        homes[room] = answers.pop()
    assert set(homes.values()) == {"r1", "r2"}, homes


async def test_a_room_created_on_one_replica_moves_to_the_replica_its_connections_name(
    cluster: Cluster,
) -> None:
    # Created through r1 directly; its id must hash to r2 (else another room is made).
    direct = f"ws://{cluster.replicas[0].host}:{cluster.replicas[0].port}/ws"
    first = await WhistClient.connect(direct, name="Alice", binary=True)
    for _ in range(30):
        await first.create_room("solo-whist", seat=0, session={"deals": 1}, bot="random", listed=False)
        assert first.room_id is not None and first.token is not None
        if http_json(f"{cluster.url}health?room={first.room_id}")[1]["replica"] == "r2":
            break
    room_id, token = first.room_id, first.token
    keys, store = Keys(), redis.asyncio.Redis.from_url(cluster.store)
    try:
        assert (await store.get(keys.room_owner(room_id))).decode().startswith("r1:")
        # The player reconnects naming the room (the balancer: r2), resumes there, leaves r1.
        async with await WhistClient.connect(room_url(cluster.ws_url, room_id), name="Alice",
                                             binary=True) as client:
            await client.resume(room_id, token)
            await first.close()

            async def moved() -> bool:
                owner = await store.get(keys.room_owner(room_id))
                followers = (await store.pubsub_numsub(keys.room_changes(room_id)))[0][1]
                return owner is not None and owner.decode().startswith("r2:") and followers == 1

            deadline = time.monotonic() + 20
            while not await moved():
                assert time.monotonic() < deadline, "r2 does not own the room, or not alone follows it"
                await asyncio.sleep(0.05)
            # The bots of the other seats now run on r2, and the deal is played to its end.
            await client.start()
            final = await client.play_until_session_over(RANDOM, timeout=120)
            assert final["session_over"] and final["played_deals"] == 1
    finally:
        await store.aclose()


def test_the_web_client_is_served_through_the_balancer(cluster: Cluster) -> None:
    import urllib.request

    with urllib.request.urlopen(cluster.url, timeout=10) as response:
        assert response.status == 200 and b"<" in response.read(200)


async def test_a_websocket_through_the_balancer_creates_a_room_and_plays_a_deal(cluster: Cluster) -> None:
    async with await WhistClient.connect(cluster.ws_url, name="Alice", binary=True) as client:
        room = await client.create_room("solo-whist", seat=0, session={"deals": 1}, bot="random")
        assert room["room_id"] == client.room_id and client.seat == 0
        await client.start()
        final = await client.play_until_session_over(RANDOM, timeout=120)
        assert final["session_over"] and final["played_deals"] == 1
        records = await client.records()
        assert records and all(record["ruleset"] == "solo-whist" for record in records)
        assert client.view is not None and client.view["phase"] == "end"


def test_a_killed_replica_leaves_the_balancer_and_comes_back_after_a_restart(cluster: Cluster) -> None:
    old_pid = cluster.replicas[0].pid
    assert old_pid is not None
    cluster.kill_replica(0)
    assert not pid_alive(old_pid) or not cluster.replicas[0].alive()
    wait_until(lambda: cluster.balancer_status()["r1"].startswith("DOWN"), 30, "r1 marked down")
    assert set(replicas_reached(cluster, 6)) == {"r2"}
    report = cluster.restart_replica(0)
    assert report["replica"] == "r1" and report["pid"] != old_pid
    assert replicas_reached(cluster) == cluster.server_pids()


def test_redis_stopped_and_started_again_keeps_the_replicas_serving(cluster: Cluster) -> None:
    cluster.stop_redis()
    # The replicas answer /health with 503 (degraded) and the balancer keeps them (both share the
    # Redis), so clients get a clear answer rather than a balancer error page.
    status, report = wait_until(lambda: _degraded(cluster), 30, "replicas see Redis gone")
    assert status == 503 and report["status"] == "degraded"
    cluster.start_redis()
    wait_until(lambda: http_json(cluster.url + "health")[0] == 200, 30, "replicas see Redis back")
    assert set(replicas_reached(cluster)) == {"r1", "r2"}


def _degraded(cluster: Cluster) -> tuple[int, dict[str, object]] | None:
    answer = http_json(cluster.url + "health")
    return answer if answer[0] == 503 else None


def test_the_rendered_configuration_is_valid_haproxy(cluster: Cluster) -> None:
    checked = subprocess.run([HAPROXY, "-c", "-f", str(cluster.config_path)], capture_output=True,
                             text=True, timeout=30, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_compose_configuration_is_the_template_rendered() -> None:
    committed = (ROOT / "deploy" / "haproxy.compose.cfg").read_text()
    assert committed == compose_config(), "run: python -m server.cluster --write-compose-config " \
                                          "deploy/haproxy.compose.cfg"
    compose = (ROOT / "docker-compose.yml").read_text()
    for service in ("server1:", "server2:", "server3:", "haproxy:", "--appendonly"):
        assert service in compose
    assert "./deploy/haproxy.compose.cfg:/usr/local/etc/haproxy/haproxy.cfg" in compose
    # The replicas archive to the PostgreSQL service (the image turns WHIST_ARCHIVE into --archive).
    assert "postgres:" in compose and compose.count("WHIST_ARCHIVE: postgresql://") == 3
    assert '${WHIST_ARCHIVE:+--archive \\"$WHIST_ARCHIVE\\"}' in (ROOT / "Dockerfile").read_text()


def test_a_balancer_without_a_given_maxconn_derives_it_from_its_own_open_file_limit(tmp_path: Path) -> None:
    # docker-compose.yml's rendering: the container's limit is not known when it is rendered, so
    # HAProxy derives maxconn itself (fd-hard-limit only caps a huge limit). Run here under 4,000.
    text = compose_config()
    assert "fd-hard-limit " in text and "\n    maxconn " not in text
    stats = tmp_path / "haproxy.sock"
    config = tmp_path / "haproxy.cfg"
    config.write_text(render_config(f"127.0.0.1:{free_port()}", [Backend("r1", "127.0.0.1", free_port())],
                                    stats_socket=stats))

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (4000, 4000))

    with (tmp_path / "haproxy.log").open("wb") as log:
        balancer = subprocess.Popen([HAPROXY, "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT,
                                    preexec_fn=low_limit)
    try:
        wait_until(stats.exists, 30, "haproxy's stats socket", balancer)
        info = wait_until(lambda: show_info(stats), 30, "show info", balancer)
    finally:
        balancer.terminate()
        balancer.wait(15)
    assert 3900 < int(info["Ulimit-n"]) <= 4000 and 1900 < int(info["Maxconn"]) < 2000, info


def show_info(stats: Path) -> dict[str, str]:
    """HAProxy's `show info`, as a dict."""
    import socket

    with socket.socket(socket.AF_UNIX) as connection:
        connection.settimeout(5)
        connection.connect(str(stats))
        connection.sendall(b"show info\n")
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    return dict(line.split(": ", 1) for line in data.decode().splitlines() if ": " in line)


def test_every_replica_archives_where_the_cluster_says(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    assert archive_args("postgresql://db/whist") == ["--archive", "postgresql://db/whist"]
    monkeypatch.setenv("WHIST_DATA_DIR", str(tmp_path))
    assert archive_args(None) == ["--archive", f"sqlite:///{tmp_path / 'archive.sqlite3'}"], \
        "one file, named once for every replica"


def _start_cli(*args: str) -> tuple[subprocess.Popen[str], str, dict[str, object]]:
    process = subprocess.Popen([sys.executable, "-m", "server.cluster", "--port", "0", *args], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stderr is not None
    line = process.stdout.readline().strip()
    assert line.startswith("whist-cluster listening on http://127.0.0.1:"), line
    described = json.loads(process.stderr.readline())
    return process, line.rsplit(" ", 1)[1], described


def _children(described: dict[str, object]) -> list[int]:
    pids = described["pids"]
    assert isinstance(pids, dict)
    return [int(pid) for pid in pids.values()]


def test_the_command_line_prints_the_url_and_sigterm_stops_everything(tmp_path: Path) -> None:
    process, url, described = _start_cli("--replicas", "2", "--describe", str(tmp_path / "cluster.json"))
    try:
        children = _children(described)
        assert len(children) == 4  # redis, two replicas, haproxy
        # --describe: the same description, every process with its role (one Redis: the primary).
        written = json.loads((tmp_path / "cluster.json").read_text())
        assert written == described and written["url"] == url and written["sentinel_service"] is None
        roles = sorted((entry["role"], entry.get("started_as", "")) for entry in written["processes"])
        assert roles == [("balancer", ""), ("redis", "primary"), ("server", ""), ("server", "")]
        assert sorted(entry["pid"] for entry in written["processes"]) == sorted(children)
        assert all(pid_alive(pid) for pid in children)
        status, report = http_json(url + "health")
        assert status == 200 and report["replica"] in ("r1", "r2")
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0
        wait_until(lambda: not any(pid_alive(pid) for pid in children), 30, "children stopped")
        assert not Path(str(described["logs"])).exists(), "the temporary directory is removed"
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


def test_children_die_with_a_killed_launcher() -> None:
    process, _, described = _start_cli("--replicas", "1")
    children = _children(described)
    process.kill()
    process.communicate(timeout=30)
    try:
        wait_until(lambda: not any(pid_alive(pid) for pid in children), 30, "orphans killed")
    finally:
        shutil.rmtree(str(described["logs"]), ignore_errors=True)  # nobody was left to remove it


def test_a_cluster_on_an_outside_store_has_no_redis_of_its_own(redis_url: str, redis_cleanup: str) -> None:
    with Cluster(replicas=1, store=f"{redis_url}?prefix={redis_cleanup}") as outside:
        assert outside.redis is None and outside.store.endswith(f"?prefix={redis_cleanup}")
        status, report = http_json(outside.url + "health")
        assert status == 200 and report["replica"] == "r1" and report["store"] == "redis"
        with pytest.raises(RuntimeError, match="outside store"):
            outside.stop_redis()
    assert not outside.replicas[0].alive()


async def test_through_the_balancer_each_client_address_has_its_own_connection_limit() -> None:
    # HAProxy reaches the replica on its Unix socket and forwards each client's address: the limit of
    # two connections per address holds for 127.0.0.2, and 127.0.0.3 is another client. Before, every
    # client shared the balancer's address, and the limit held for all players together.
    with Cluster(replicas=1, server_args=["--max-connections-per-address", "2",
                                          "--log-level", "warning"]) as cluster:
        assert "unix@" in cluster.config_path.read_text() and cluster.replicas[0].unix_path.exists()

        async def pinged(source: str) -> ClientConnection:
            websocket = await connect(cluster.ws_url, local_addr=(source, 0), open_timeout=30)
            await websocket.send('{"type": "ping", "id": 1}')
            answer = json.loads(await asyncio.wait_for(websocket.recv(), 30))
            assert answer["type"] == "ok", answer
            return websocket

        kept = [await pinged("127.0.0.2"), await pinged("127.0.0.2"), await pinged("127.0.0.3")]
        with pytest.raises(ConnectionClosed) as refused:
            await pinged("127.0.0.2")
        assert refused.value.rcvd is not None and refused.value.rcvd.code == 1013, refused.value
        for websocket in kept:
            await websocket.close()


def test_the_balancer_holds_as_many_connections_as_the_open_file_limit_allows(cluster: Cluster) -> None:
    # Two descriptors per proxied connection, a few for HAProxy itself: derived from RLIMIT_NOFILE,
    # not fixed (8000 stopped one balancer at 1,600 tables on a machine that allowed far more).
    assert machine_maxconn(20_000) == 9_900 and machine_maxconn(100_000) == 49_900
    assert machine_maxconn(150) == 1
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    unlimited = hard == resource.RLIM_INFINITY
    assert open_file_limit() == (DESCRIPTOR_CAP if unlimited else min(DESCRIPTOR_CAP, hard))
    assert f"maxconn {machine_maxconn()}\n" in cluster.config_path.read_text()
    log = (cluster.directory / "haproxy.log").read_text()
    assert "FD limit" not in log and "maxconn" not in log, log  # HAProxy could raise its own limit


def open_files(pid: int) -> tuple[int, int]:
    """A process's (soft, hard) open-file limits, from /proc/<pid>/limits."""
    line = next(line for line in Path(f"/proc/{pid}/limits").read_text().splitlines()
                if line.startswith("Max open files"))
    soft, hard = line.split()[3:5]
    return int(soft), int(hard)


def test_a_launcher_with_a_low_soft_limit_gives_its_replicas_and_balancer_the_whole_hard_limit(
        tmp_path: Path) -> None:
    # A shell's usual soft limit is 1,024: a replica that inherited it would refuse its 1,025th
    # websocket, whatever HAProxy's maxconn. The launcher raises its own limit first; its children
    # inherit it (server/fd_limits.py).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, soft), hard))
    try:
        with Cluster(replicas=1, directory=tmp_path, server_args=["--log-level", "warning"]) as small:
            raised = resource.getrlimit(resource.RLIMIT_NOFILE)
            assert raised[0] == raised[1] or raised[0] == DESCRIPTOR_CAP, raised
            replica_pid = small.replicas[0].pid
            assert replica_pid is not None and open_files(replica_pid) == raised
            assert small.haproxy is not None
            # HAProxy sets its own limit from its maxconn: two per connection and a few of its own.
            balancer_soft, _ = open_files(small.haproxy.pid)
            assert 2 * machine_maxconn() < balancer_soft <= raised[1], (balancer_soft, raised)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def test_the_description_gives_each_server_the_command_line_that_starts_it_again(tmp_path: Path) -> None:
    described = Cluster(replicas=2, directory=tmp_path, server_args=["--bot-delay", "0"]).describe()
    servers = [entry for entry in described["processes"] if entry["role"] == "server"]
    assert [entry["replica"] for entry in servers] == ["r1", "r2"]
    for entry in servers:
        argv = entry["argv"]
        assert argv[1:3] == ["-m", "server"] and argv[-2:] == ["--bot-delay", "0"]
        assert argv[argv.index("--port") + 1] == str(entry["port"])
        assert argv[argv.index("--replica-id") + 1] == entry["replica"]
        assert (Path(entry["cwd"]) / "server" / "__main__.py").exists()


# ---------------------------------------------------------------- two balancer processes, one port


@pytest.fixture(scope="module")
def two_balancers() -> Iterator[Cluster]:
    """Two replicas behind two HAProxy processes on the one address (SO_REUSEPORT)."""
    with Cluster(replicas=2, balancers=2,
                 server_args=["--bot-delay", "0", "--log-level", "warning"]) as running:
        yield running


def sessions(cluster: Cluster, proxy: str) -> list[dict[str, int]]:
    """Per balancer process: server (and FRONTEND/BACKEND) name -> sessions so far (`stot`) in `proxy`."""
    return [{row["svname"]: int(row["stot"] or 0) for row in cluster.balancer_stats(index)
             if row["pxname"] == proxy} for index in range(len(cluster.stats_sockets))]


def test_two_balancer_processes_run_each_with_its_own_maxconn_and_both_serve_the_one_port(
        two_balancers: Cluster) -> None:
    pids = two_balancers.balancer_pids()
    assert len(set(pids)) == 2 and all(pid_alive(pid) for pid in pids), pids
    assert two_balancers.haproxy is not None and two_balancers.haproxy.pid == pids[0]
    for index, config in enumerate(two_balancers.config_paths):
        assert f"maxconn {machine_maxconn()}\n" in config.read_text()
        assert f"stats socket {two_balancers.stats_sockets[index]} " in config.read_text()
        info = show_info(two_balancers.stats_sockets[index])
        assert int(info["Pid"]) == pids[index] and int(info["Maxconn"]) == machine_maxconn(), info
    before = [counts["FRONTEND"] for counts in sessions(two_balancers, "whist")]
    # The kernel picks one listener per new connection (a hash of its addresses and ports): within a
    # few hundred connections each process has had some.
    for attempt in range(400):
        assert http_json(two_balancers.url + "health")[0] == 200
        now = [counts["FRONTEND"] for counts in sessions(two_balancers, "whist")]
        if attempt >= 10 and all(after > earlier for after, earlier in zip(now, before, strict=True)):
            break
    assert all(after > earlier for after, earlier in zip(now, before, strict=True)), (before, now)


def test_a_room_reaches_the_same_replica_through_either_balancer_process(two_balancers: Cluster) -> None:
    homes: dict[str, str] = {}
    for number in range(6):
        room = f"reuse{number}"
        before = sessions(two_balancers, "rooms")
        answers = {http_json(f"{two_balancers.url}health?room={room}")[1]["replica"] for _ in range(40)}
        assert len(answers) == 1, f"{room} reached {answers}"
        homes[room] = answers.pop()
        after = sessions(two_balancers, "rooms")
        # Both processes served this room, and each sent it only to its home.
        for earlier, later in zip(before, after, strict=True):
            grown = {name for name in later if name != "BACKEND" and later[name] > earlier.get(name, 0)}
            assert grown == {homes[room]}, (room, before, after)
    assert set(homes.values()) == {"r1", "r2"}, homes


def test_a_restarted_replica_goes_down_and_comes_back_in_every_balancer_process(
        two_balancers: Cluster) -> None:
    two_balancers.stop_replica(0)
    wait_until(lambda: two_balancers.balancer_status()["r1"].startswith("DOWN"), 30, "r1 down everywhere")
    assert all(two_balancers.balancer_status(index)["r1"].startswith("DOWN") for index in (0, 1))
    # Meanwhile a room of r1 goes to r2 through both processes (the same consistent hash).
    before = sessions(two_balancers, "rooms")
    room = next(f"reuse{number}" for number in range(50)
                if http_json(f"{two_balancers.url}health?room=reuse{number}")[1]["replica"] == "r2")
    assert {http_json(f"{two_balancers.url}health?room={room}")[1]["replica"] for _ in range(20)} == {"r2"}
    assert all(later["r1"] == earlier["r1"] for earlier, later
               in zip(before, sessions(two_balancers, "rooms"), strict=True))
    two_balancers.restart_replica(0)  # returns once every balancer process counts r1 up again
    assert all(two_balancers.balancer_status(index)["r1"].startswith("UP") for index in (0, 1))
    assert two_balancers.balancer_status()["r2"].startswith("UP")


def test_the_agreed_status_names_a_disagreement_between_balancer_processes(tmp_path: Path) -> None:
    views = [{"r1": "UP", "r2": "DOWN"}, {"r1": "UP", "r2": "UP 1/2"}]
    assert agreed_status(views) == {"r1": "UP", "r2": "MIXED DOWN / UP 1/2"}
    assert agreed_status(views[:1]) == views[0]
    with pytest.raises(ValueError, match="balancer process"):
        Cluster(replicas=1, directory=tmp_path, balancers=0)


def test_the_command_line_describes_every_balancer_process_and_stops_them_all(tmp_path: Path) -> None:
    process, url, described = _start_cli("--replicas", "1", "--balancer-processes", "2",
                                         "--describe", str(tmp_path / "cluster.json"))
    try:
        written = json.loads((tmp_path / "cluster.json").read_text())
        balancers = [entry for entry in written["processes"] if entry["role"] == "balancer"]
        assert len(balancers) == 2 and len({entry["pid"] for entry in balancers}) == 2, balancers
        port = int(url.rstrip("/").rsplit(":", 1)[1])
        assert {(entry["host"], entry["port"]) for entry in balancers} == {("127.0.0.1", port)}
        assert [written["pids"]["haproxy"], written["pids"]["haproxy2"]] == [e["pid"] for e in balancers]
        for entry in balancers:
            assert pid_alive(entry["pid"])
            assert int(show_info(Path(entry["stats_socket"]))["Pid"]) == entry["pid"]
        children = _children(described)
        process.send_signal(signal.SIGTERM)
        assert process.wait(60) == 0
        wait_until(lambda: not any(pid_alive(pid) for pid in children), 30, "children stopped")
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)


def test_a_balancer_port_taken_before_haproxy_binds_it_is_chosen_again() -> None:
    """Parallel test workers: the free port the launcher chose may be taken before HAProxy binds it."""
    import socket

    cluster = Cluster(replicas=1, server_args=["--log-level", "warning"])
    chosen = cluster.port
    try:
        with socket.socket() as squatter:
            squatter.bind((cluster.host, chosen))
            squatter.listen()
            cluster.start()
            assert cluster.port != chosen
            assert http_json(cluster.url + "health")[0] == 200
            assert "Address already in use" in cluster.config_paths[0].with_suffix(".log").read_text()
    finally:
        cluster.stop()
