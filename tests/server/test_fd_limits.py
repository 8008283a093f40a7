"""The open-file limit each process of the cluster raises for itself (server/fd_limits.py), and
HAProxy's `maxconn` derived from what is left (server/cluster/haproxy.py: machine_maxconn)."""

from __future__ import annotations

import resource
from pathlib import Path

from server.cluster.haproxy import machine_maxconn
from server.fd_limits import DESCRIPTOR_CAP, Limits, attempts, kernel_ceiling, raise_open_file_limit

INFINITY = resource.RLIM_INFINITY


class FakeLimits:
    """getrlimit/setrlimit on one process, which may or may not raise its hard limit."""

    def __init__(self, soft: int, hard: int, privileged: bool) -> None:
        self.limits: Limits = (soft, hard)
        self.privileged = privileged
        self.asked: list[Limits] = []

    def getrlimit(self, which: int) -> Limits:
        assert which == resource.RLIMIT_NOFILE
        return self.limits

    def setrlimit(self, which: int, wanted: Limits) -> None:
        assert which == resource.RLIMIT_NOFILE
        self.asked.append(wanted)
        soft, hard = wanted
        if soft > hard:
            raise ValueError("not allowed to raise soft limit above hard")
        if hard > self.limits[1] and not self.privileged:
            raise ValueError("not allowed to raise maximum limit")
        self.limits = wanted


def test_a_process_without_cap_sys_resource_raises_its_soft_limit_to_the_hard_one() -> None:
    # This machine: root in a container without CAP_SYS_RESOURCE, hard limit 20,000, nr_open 1,048,576.
    process = FakeLimits(1024, 20_000, privileged=False)
    assert raise_open_file_limit(ceiling=1_048_576, getrlimit=process.getrlimit,
                                 setrlimit=process.setrlimit) == (20_000, 20_000)
    assert process.asked == [(DESCRIPTOR_CAP, DESCRIPTOR_CAP), (20_000, 20_000)]  # tried, then fell back
    # So the balancer, its child, holds (20,000 - 200) // 2 connections: 1,980 tables of five.
    assert machine_maxconn(process.limits[1]) == 9_900


def test_a_privileged_process_raises_both_limits_to_the_kernel_ceiling_at_most_the_cap() -> None:
    process = FakeLimits(1024, 20_000, privileged=True)
    assert raise_open_file_limit(ceiling=1_048_576, getrlimit=process.getrlimit,
                                 setrlimit=process.setrlimit) == (DESCRIPTOR_CAP, DESCRIPTOR_CAP)
    assert machine_maxconn(DESCRIPTOR_CAP) == 130_972  # 25,000 connections fit five times over
    low_ceiling = FakeLimits(1024, 20_000, privileged=True)
    assert raise_open_file_limit(ceiling=50_000, getrlimit=low_ceiling.getrlimit,
                                 setrlimit=low_ceiling.setrlimit) == (50_000, 50_000)


def test_limits_already_high_enough_are_left_alone_and_never_lowered() -> None:
    assert attempts(20_000, 20_000, 10_000) == []
    assert attempts(DESCRIPTOR_CAP, 1_048_576, 1_048_576) == []  # a hard limit above the cap is kept
    assert attempts(1024, 1_048_576, 1_048_576) == [(DESCRIPTOR_CAP, 1_048_576)]  # soft: up to the cap
    process = FakeLimits(300_000, 300_000, privileged=True)
    assert raise_open_file_limit(ceiling=1_048_576, getrlimit=process.getrlimit,
                                 setrlimit=process.setrlimit) == (300_000, 300_000)
    assert process.asked == []


def test_an_unlimited_hard_limit_gives_a_soft_limit_the_kernel_accepts() -> None:
    # A soft limit may not be unlimited (nor above nr_open): it goes to the ceiling, the hard one stays.
    assert attempts(1024, INFINITY, 65_536) == [(65_536, INFINITY)]
    assert attempts(1024, INFINITY, None) == [(DESCRIPTOR_CAP, INFINITY)]


def test_the_kernel_ceiling_is_read_from_nr_open(tmp_path: Path) -> None:
    assert kernel_ceiling(tmp_path / "absent") is None
    (tmp_path / "nr_open").write_text("1048576\n")
    assert kernel_ceiling(tmp_path / "nr_open") == 1_048_576
    (tmp_path / "garbled").write_text("lots\n")
    assert kernel_ceiling(tmp_path / "garbled") is None


def test_this_process_ends_with_its_soft_limit_at_its_hard_limit() -> None:
    before_soft, before_hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        soft, hard = raise_open_file_limit()
        assert hard >= before_hard and soft >= before_soft
        assert soft == max(before_soft, min(hard, DESCRIPTOR_CAP, kernel_ceiling() or DESCRIPTOR_CAP))
    finally:  # the other tests of this process keep the limit they started with
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (before_soft, hard))
