"""Child processes of the cluster launcher: a private redis-server, server replicas, HAProxy.

Every child is started with PR_SET_PDEATHSIG (Linux), so it gets SIGKILL if the process that
started it dies without stopping it. Start clusters from the main thread: the signal follows the
thread that forked.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Any

PR_SET_PDEATHSIG = 1
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"
REDIS_SENTINEL = shutil.which("redis-sentinel") or "/usr/bin/redis-sentinel"
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"


def free_port(host: str = "127.0.0.1") -> int:
    """A port nobody listens on right now (the OS picks it)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _die_with_parent() -> None:
    """In the child, before exec: get SIGKILL when the parent dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass  # not Linux: the launcher's own signal handlers still stop the children


def spawn(args: list[str], log_path: Path, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """Start a child with stdout and stderr appended to `log_path`."""
    log: IO[bytes] = log_path.open("ab")
    try:
        return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                cwd=cwd, preexec_fn=_die_with_parent)
    finally:
        log.close()  # the child has its own copy


def stop(process: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM, timeout: float = 15.0) -> None:
    """Send `sig` and wait; SIGKILL if it does not end within `timeout`."""
    if process is None or process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


def http_json(url: str, timeout: float = 3.0) -> tuple[int, dict[str, Any]]:
    """GET a JSON document: (status, body); a 503 with a JSON body is an answer too."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as error:
        body = error.read()
        return int(error.code), json.loads(body) if body.startswith(b"{") else {}


def wait_until(check: Any, timeout: float, what: str, process: subprocess.Popen[bytes] | None = None,
               log_path: Path | None = None) -> Any:
    """Call `check()` until it returns a true value (exceptions count as not yet); TimeoutError."""
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what}: process exited with {process.returncode}{tail(log_path)}")
        try:
            result = check()
        except Exception:
            result = None
        if result:
            return result
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not ready after {timeout} s{tail(log_path)}")
        time.sleep(0.05)


def tail(log_path: Path | None, lines: int = 15) -> str:
    """The end of a child's log, for error messages."""
    if log_path is None or not log_path.exists():
        return ""
    last = log_path.read_text(errors="replace").splitlines()[-lines:]
    return f"\n--- {log_path}\n" + "\n".join(last)


class PrivateRedis:
    """A redis-server of its own: loopback, a free port, append-only file in `directory`. Stopping and
    starting it again keeps the port and the data (the append-only file is replayed). Its settings
    are a configuration file in `directory`, written once: a sentinel that makes it a replica (or a
    primary) rewrites it, and a restart keeps that role. `replica_of`: the port of its primary;
    `settings`: more configuration lines (`name value`)."""

    def __init__(self, directory: Path, port: int | None = None, replica_of: int | None = None,
                 settings: list[str] | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.replica_of = replica_of
        self.settings = list(settings or [])
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = directory / "redis.log"
        self.config_path = directory / "redis.conf"

    @property
    def url(self) -> str:
        """The store URL of database 0."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        """The process id of the last start (None before the first)."""
        return self.process.pid if self.process is not None else None

    @property
    def started_as(self) -> str:
        """`primary` or `replica`: the role it was configured with (a failover may have changed it)."""
        return "primary" if self.replica_of is None else "replica"

    @property
    def argv(self) -> list[str]:
        """Its command line (the same one starts it again)."""
        return [REDIS_SERVER, str(self.config_path)]

    def _write_config(self) -> None:
        lines = [f"port {self.port}", "bind 127.0.0.1", "appendonly yes", "appendfsync everysec", 'save ""',
                 f"dir {self.directory}", "daemonize no", "protected-mode yes", *self.settings]
        if self.replica_of is not None:
            lines.append(f"replicaof 127.0.0.1 {self.replica_of}")
        self.config_path.write_text("\n".join(lines) + "\n")

    def start(self, timeout: float = 20.0) -> None:
        """Start it and wait until it answers PING."""
        self.directory.mkdir(parents=True, exist_ok=True)
        if not self.config_path.exists():
            self._write_config()
        self.process = spawn(self.argv, self.log_path)
        wait_until(self.ping, timeout, "redis-server", self.process, self.log_path)

    def ping(self) -> bool:
        """Whether it answers PING (a raw RESP exchange, no client library needed)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")

    def info(self, section: str = "replication") -> dict[str, str]:
        """`INFO section` as a dict."""
        import redis

        with redis.Redis(port=self.port, socket_timeout=3, decode_responses=True) as client:
            found: dict[str, str] = {key: str(value) for key, value in client.info(section).items()}
        return found

    def stop(self) -> None:
        """SIGTERM (it writes the append-only file and exits)."""
        stop(self.process)

    def kill(self) -> None:
        """SIGKILL."""
        stop(self.process, signal.SIGKILL)


class PrivateSentinel:
    """A redis-sentinel of its own on loopback, watching `service` (first at the primary on
    `primary_port`), with short timings so that a failover takes a few seconds (`down_after_ms`:
    how long the primary may be silent before it is judged down)."""

    def __init__(self, directory: Path, primary_port: int, service: str, quorum: int = 2,
                 down_after_ms: int = 1500, failover_timeout_ms: int = 6000, port: int | None = None) -> None:
        self.directory = directory
        self.port = port or free_port()
        self.primary_port = primary_port
        self.service = service
        self.quorum = quorum
        self.down_after_ms = down_after_ms
        self.failover_timeout_ms = failover_timeout_ms
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = directory / "sentinel.log"
        self.config_path = directory / "sentinel.conf"  # the sentinel rewrites it (what it learnt)

    @property
    def pid(self) -> int | None:
        """The process id of the last start (None before the first)."""
        return self.process.pid if self.process is not None else None

    @property
    def argv(self) -> list[str]:
        """Its command line."""
        return [REDIS_SENTINEL, str(self.config_path)]

    def start(self, timeout: float = 20.0) -> None:
        """Start it and wait until it names the primary."""
        self.directory.mkdir(parents=True, exist_ok=True)
        if not self.config_path.exists():
            service = self.service
            self.config_path.write_text("\n".join([
                f"port {self.port}", "bind 127.0.0.1", "daemonize no", f"dir {self.directory}",
                f"sentinel monitor {service} 127.0.0.1 {self.primary_port} {self.quorum}",
                f"sentinel down-after-milliseconds {service} {self.down_after_ms}",
                f"sentinel failover-timeout {service} {self.failover_timeout_ms}",
                f"sentinel parallel-syncs {service} 1"]) + "\n")
        self.process = spawn(self.argv, self.log_path)
        wait_until(self.primary, timeout, "redis-sentinel", self.process, self.log_path)

    def _client(self) -> Any:
        import redis

        return redis.Redis(port=self.port, socket_timeout=3, decode_responses=True)

    def primary(self) -> tuple[str, int] | None:
        """Where it says the service's primary is (`SENTINEL get-master-addr-by-name`)."""
        with self._client() as client:
            found = client.sentinel_get_master_addr_by_name(self.service)
        return (str(found[0]), int(found[1])) if found else None

    def sees(self, replicas: int, sentinels: int) -> bool:
        """Whether it knows `replicas` replicas of the primary, and `sentinels` other sentinels."""
        with self._client() as client:
            state = client.sentinel_master(self.service)
        return int(state.get("num-slaves", 0)) >= replicas and \
            int(state.get("num-other-sentinels", 0)) >= sentinels

    def ask_failover(self) -> None:
        """`SENTINEL FAILOVER`: promote a replica now, as if the primary had failed."""
        with self._client() as client:
            client.sentinel_failover(self.service)

    def stop(self) -> None:
        """SIGTERM."""
        stop(self.process)


class Replica:
    """One `python -m server` process with a replica id, on a fixed port (kept across restarts, so
    the balancer's configuration stays valid)."""

    def __init__(self, replica_id: str, store: str, directory: Path, host: str = "127.0.0.1",
                 port: int | None = None, extra_args: list[str] | None = None) -> None:
        self.replica_id = replica_id
        self.store = store
        self.host = host
        self.port = port or free_port(host)
        self.extra_args = extra_args or []
        self.log_path = directory / f"{replica_id}.log"
        self.unix_path = directory / f"{replica_id}.sock"  # the balancer's way in (same host)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """Its own HTTP address (not through the balancer)."""
        return f"http://{self.host}:{self.port}/"

    @property
    def pid(self) -> int | None:
        """The running process's id."""
        return self.process.pid if self.process is not None and self.process.poll() is None else None

    @property
    def argv(self) -> list[str]:
        """Its command line, run from `cwd` (the same one starts it again, on the same port)."""
        return [sys.executable, "-m", "server", "--host", self.host, "--port", str(self.port),
                "--unix", str(self.unix_path), "--store", self.store, "--replica-id", self.replica_id,
                *self.extra_args]

    @property
    def cwd(self) -> Path:
        """The directory it runs in (the repository root: `python -m server` imports this tree)."""
        return Path(__file__).resolve().parents[2]

    def start(self) -> None:
        """Start the process (does not wait; see `wait_ready`)."""
        self.process = spawn(self.argv, self.log_path, cwd=self.cwd)

    def health(self) -> dict[str, Any]:
        """Its /health report (asked directly)."""
        return http_json(self.url + "health")[1]

    def wait_ready(self, timeout: float = 60.0) -> dict[str, Any]:
        """Wait until its /health names this very process."""
        def named() -> dict[str, Any] | None:
            report = self.health()
            return report if report.get("pid") == self.pid else None

        ready: dict[str, Any] = wait_until(named, timeout, f"replica {self.replica_id}", self.process,
                                           self.log_path)
        return ready

    def terminate(self) -> None:
        """SIGTERM: a clean shutdown."""
        stop(self.process)

    def kill(self) -> None:
        """SIGKILL: a crash."""
        stop(self.process, signal.SIGKILL)

    def alive(self) -> bool:
        """Whether the process is running."""
        return self.process is not None and self.process.poll() is None


def pid_alive(pid: int) -> bool:
    """Whether a process with this id runs (a zombie, dead but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        try:
            os.kill(pid, 0)  # no /proc (not Linux): ask the kernel
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")
