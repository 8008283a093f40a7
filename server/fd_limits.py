"""The open-file limit (RLIMIT_NOFILE) a server, launcher or load process runs with, raised as far as it may.

Every websocket is a descriptor in the server process that holds it, two in the balancer (the client's
and the replica's) and one in the load generator, so the launcher, each server process and each
generator process raise their own limit before they open anything: the soft limit up to the hard
limit (any process may), and the hard limit itself up to `/proc/sys/fs/nr_open` (at most
`DESCRIPTOR_CAP`) where the process may (CAP_SYS_RESOURCE: root outside a container that drops it).
Children inherit the raised limits: HAProxy, started by the launcher, can only count on its hard limit
(it cannot raise it either without CAP_SYS_RESOURCE, and under `strict-limits` it refuses to start
when it cannot reach what its `maxconn` needs), so `haproxy.machine_maxconn` is derived from the
limit that `raise_open_file_limit` leaves. docs/scaling.md, "One balancer", says what this machine
gives.
"""

from __future__ import annotations

import logging
import resource
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger("whist.limits")

NR_OPEN = Path("/proc/sys/fs/nr_open")
# The most descriptors asked for even where the kernel allows more (nr_open is 1,048,576 by default):
# HAProxy sizes its descriptor table by its limit (fd-hard-limit in its manual), and 262,144 is room
# for 130,000 proxied connections, far beyond what a 2-core host serves.
DESCRIPTOR_CAP = 262_144

Limits = tuple[int, int]  # (soft, hard), as `resource.getrlimit` gives them


def kernel_ceiling(path: Path = NR_OPEN) -> int | None:
    """The kernel's per-process ceiling (`fs.nr_open`), or None where it cannot be read."""
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def attempts(soft: int, hard: int, ceiling: int | None, cap: int = DESCRIPTOR_CAP) -> list[Limits]:
    """The limits to ask for, best first, from the current (`soft`, `hard`) and the kernel's
    `ceiling`: both up to min(ceiling, cap) if that is above the hard limit (needs CAP_SYS_RESOURCE),
    then the soft limit up to the hard one, at most that same top (always allowed). Never lower than
    now; an unlimited hard limit (`RLIM_INFINITY`) stays, with the soft limit at the top (a soft limit
    cannot be unlimited past nr_open)."""
    top = min(ceiling, cap) if ceiling is not None else cap
    usable_hard = top if hard == resource.RLIM_INFINITY else hard
    wanted: list[Limits] = []
    if top > usable_hard:
        wanted.append((top, top))
    soft_target = min(usable_hard, top)
    if soft != resource.RLIM_INFINITY and soft < soft_target:
        wanted.append((soft_target, hard))
    return wanted


def raise_open_file_limit(cap: int = DESCRIPTOR_CAP, ceiling: int | None = None,
                          getrlimit: Callable[[int], Limits] = resource.getrlimit,
                          setrlimit: Callable[[int, Limits], None] = resource.setrlimit) -> Limits:
    """Raise this process's RLIMIT_NOFILE as far as it may (see `attempts`); the limits it has then.
    `ceiling` defaults to the kernel's (`kernel_ceiling`)."""
    soft, hard = getrlimit(resource.RLIMIT_NOFILE)
    for wanted in attempts(soft, hard, kernel_ceiling() if ceiling is None else ceiling, cap):
        try:
            setrlimit(resource.RLIMIT_NOFILE, wanted)
        except (ValueError, OSError) as refused:  # no CAP_SYS_RESOURCE: the hard limit stays
            log.debug("open-file limit %s refused: %s", wanted, refused)
            continue
        break
    return getrlimit(resource.RLIMIT_NOFILE)
