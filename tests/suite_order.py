"""How the suite is ordered and shared between pytest-xdist workers (used by tests/conftest.py).

A work unit is what one worker runs as a whole: a browser group, a module whose module-scoped fixture is
costly, or else a single test. Units are handed out in the order of the collection, which is: the long
modules first, then the other tests, then the two browser groups.
"""

from __future__ import annotations

from typing import Any

#: Modules whose tests take minutes of CPU (the slowest in `--durations`, see docs/benchmarks.md, "Test
#: suite"): handed out first, so that no worker starts one of them when the other is nearly done.
LONG_MODULES = (
    "tests/rules/test_property.py",
    "tests/bots/test_expert.py",
    "tests/cluster/test_cluster_tables.py",
    "tests/cluster/test_cluster_table_social.py",
    "tests/server/test_red_team.py",
    "tests/bots/test_strength.py",
    "tests/test_code_quality.py",
    "tests/test_wheel.py",
    "tests/server/test_fuzz.py",
)

#: Modules whose module-scoped fixture starts something costly (a cluster of processes behind HAProxy,
#: a server process, a built wheel): all their tests go to one worker, so it is started once, not once
#: per worker.
ONE_WORKER_MODULES = (
    "tests/cluster/test_cluster_tables.py",
    "tests/cluster/test_cluster_table_social.py",
    "tests/cluster/test_cluster_launcher.py",
    "tests/server/test_red_team.py",
    "tests/test_wheel.py",
)

#: The browser modules of the second group (about half of the browser time in the baseline run); the
#: others, new ones included, are in the first. A group runs on one worker: one Chromium there, and one
#: server per module.
SECOND_BROWSER_GROUP = (
    "test_web_client_play.py",
    "test_web_client_daily.py",
    "test_web_client_a11y.py",
    "test_web_client_feel.py",
    "test_web_client_replay.py",
    "test_web_client_prompts.py",
)


def module_of(nodeid: str) -> str:
    """`tests/x/test_y.py` of `tests/x/test_y.py::test_z[param]`."""
    return nodeid.split("::", 1)[0]


def is_browser_test(nodeid: str) -> bool:
    """Whether the test drives Chromium (tests/browser/)."""
    return module_of(nodeid).rpartition("/")[0].endswith("browser")


def work_unit(nodeid: str) -> str:
    """The unit one worker runs as a whole: `browser-1` or `browser-2`, a module, or the test itself."""
    module = module_of(nodeid)
    if is_browser_test(nodeid):
        return "browser-2" if module.rpartition("/")[2] in SECOND_BROWSER_GROUP else "browser-1"
    if module in ONE_WORKER_MODULES:
        return module
    return nodeid


def run_order(nodeid: str) -> tuple[int, str]:
    """Sort key: long modules (0), then the other tests (1), then the browser groups one after the other."""
    if is_browser_test(nodeid):
        return (2, work_unit(nodeid))
    return (0 if module_of(nodeid) in LONG_MODULES else 1, "")


def make_scheduler(config: Any, log: Any) -> Any:
    """A pytest-xdist scheduler that hands out the units of `work_unit` in the order of the collection
    (never reordered by the units' sizes), so that the browser groups are the last units and a worker
    that runs one runs nothing after it.

    Why not the `xdist_group` mark: pytest-xdist 3.8 tags a grouped test by assigning `item._nodeid`,
    which pytest 9.2 no longer reads; every test was then its own unit, and the browser tests ran on
    every worker, each worker starting its own server for each browser module.
    """
    from xdist.scheduler import LoadScopeScheduling

    class UnitScheduling(LoadScopeScheduling):  # type: ignore[misc]
        """Load scheduling by `work_unit`, in collection order."""

        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    config.option.loadscopereorder = False
    return UnitScheduling(config, log)
