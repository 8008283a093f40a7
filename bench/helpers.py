"""What the benchmarks share: their figures (percentiles, medians over runs), the processes they start
and stop, and the writer of their sections of docs/benchmarks.md.

Percentiles are `server.bots.stats.percentile` (nearest rank; no values give `nan`), the one formula of
the whole repository, re-exported here for the scripts.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from server.bots.stats import percentile
from server.rules import Session

__all__ = ["ROOT", "CountingPeer", "cpu_seconds", "event_loop_runner", "host_uptime", "medians",
           "percentile", "python_module", "read_health", "start_process", "stop_process", "write_section"]

#: The repository root: every process is started from there, so `python -m server` and
#: `python -m bench.x` import this tree's packages.
ROOT = Path(__file__).resolve().parent.parent

T = TypeVar("T")


# ------------------------------------------------------------------------------------------- figures


def medians(results: Sequence[Mapping[str, Any]], by: Sequence[str],
            each_run: Mapping[str, str] | None = None, digits: int = 3) -> list[dict[str, Any]]:
    """One row per distinct value of the `by` fields (in the order first seen; results without them are
    left out): the median over its runs of every number, the other fields as in its first run, `runs`
    (how many), and for each `name: field` of `each_run` the list of that field in each run.

    Counts stay whole: the median of two runs is their mean, so "300 tables" would read "300.0"; a
    figure that is an integer in the first run and whose median is whole is an `int`. Others are rounded
    to `digits`. A run without a number for a field (None) is left out of that field's median.
    """
    groups: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for result in results:
        if all(field in result for field in by):
            groups.setdefault(tuple(result[field] for field in by), []).append(result)
    rows = []
    for runs in groups.values():
        row: dict[str, Any] = {}
        for key, value in runs[0].items():
            if _is_number(value):
                middle = statistics.median(r[key] for r in runs if _is_number(r.get(key)))
                whole = isinstance(value, int) and float(middle).is_integer()
                row[key] = int(middle) if whole else round(middle, digits)
            else:
                row[key] = value
        row["runs"] = len(runs)
        for name, field in (each_run or {}).items():
            row[name] = [r.get(field) for r in runs]
        rows.append(row)
    return rows


def _is_number(value: Any) -> bool:
    """An int or a float (a bool is neither here)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


# ------------------------------------------------------------------------------------------- processes


def random_session(ruleset: str, secret: str, deals: int, seed: int) -> Session:
    """A session of `deals` deals played to its end with a seeded random legal action at every turn."""
    rng = random.Random(seed)
    session = Session(ruleset, secret, deals=deals)
    while True:
        deal = session.deal
        while not deal.finished:
            seat = min(deal.to_act())
            session.apply(seat, rng.choice(deal.legal_actions(seat)))
        if session.over:
            return session
        session.next_deal()


def python_module(module: str, *args: str) -> list[str]:
    """The command line running `python -m module args...` with this interpreter."""
    return [sys.executable, "-m", module, *args]


def start_process(args: list[str], prefix: str) -> tuple[subprocess.Popen[str], str]:
    """Start a process (from the repository root) that prints one line starting with `prefix` and ending
    in its URL; returns the process and that URL. Its other output is discarded."""
    process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith(prefix):
        stop_process(process)
        raise RuntimeError(f"unexpected first line: {line!r}")
    return process, line.rsplit(" ", 1)[1]


def stop_process(process: subprocess.Popen[str]) -> None:
    """SIGTERM, then wait (SIGKILL after 20 s)."""
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)
    if process.stdout is not None:
        process.stdout.close()


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) a process has used so far, from /proc (None where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def read_health(url: str) -> dict[str, Any]:
    """A server's /health report (`url` is the full address of it)."""
    with urllib.request.urlopen(url, timeout=30) as response:
        report: dict[str, Any] = json.loads(response.read())
    return report


def event_loop_runner() -> Callable[[Coroutine[Any, Any, T]], T]:
    """uvloop's `run` when installed, else asyncio's: the less CPU a load generator takes from the host,
    the less it adds to the latencies it measures."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run
    runner: Callable[[Coroutine[Any, Any, T]], T] = uvloop.run
    return runner


def host_uptime() -> str:
    """The host's `uptime` line (its load when a run starts), for the reports."""
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


class CountingPeer:
    """A connection stand-in for measurements in process: counts the pushes, sends nothing."""

    def __init__(self) -> None:
        self.name = "bench"
        self.wants_events = False
        self.closing = False
        self.pushes = 0

    def push(self, message: dict[str, Any]) -> None:
        """Count one push."""
        self.pushes += 1


# ------------------------------------------------------------------------------------------- reports


def write_section(path: Path, section: str, title: str) -> None:
    """Replace the section whose heading line is exactly `title` (up to the next `## ` heading) with
    `section`, or add it at the end; the other sections stay as they are. A file that does not exist
    starts as `# Benchmarks`."""
    text = path.read_text() if path.exists() else "# Benchmarks\n"
    # The heading line itself: "## Load (human-paced)" must not match "## Load (human-paced): ...".
    heading = text.find("\n" + title + "\n")
    if heading == -1:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        start = heading + 1
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + ("\n" + text[end + 1:] if end != -1 else "")
    path.write_text(text)
