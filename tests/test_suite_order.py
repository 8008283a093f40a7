"""The order of the suite and its work units (tests/suite_order.py): every module named there exists,
the browser tests come last in two groups that never mix with other tests, and the long modules first."""

from __future__ import annotations

from pathlib import Path

from suite_order import (
    LONG_MODULES,
    ONE_WORKER_MODULES,
    SECOND_BROWSER_GROUP,
    is_browser_test,
    run_order,
    work_unit,
)

ROOT = Path(__file__).resolve().parents[1]
BROWSER_MODULES = sorted(path.name for path in (ROOT / "tests" / "browser").glob("test_*.py"))
SOME_TESTS = [
    "tests/rules/test_deck.py::test_cut_lowest_card_deals",
    "tests/server/test_limits.py::test_the_limit_flags",
    "tests/rules/test_property.py::test_random_playouts[whist]",
    "tests/test_wheel.py::test_the_installed_server_starts_and_serves_the_web_client",
    *(f"tests/browser/{name}::test_x[phone]" for name in BROWSER_MODULES),
]


def test_every_module_named_in_the_order_exists() -> None:
    for module in (*LONG_MODULES, *ONE_WORKER_MODULES):
        assert (ROOT / module).is_file(), module
    for name in SECOND_BROWSER_GROUP:
        assert name in BROWSER_MODULES, name


def test_the_browser_tests_are_two_units_and_both_groups_have_modules() -> None:
    units = {work_unit(f"tests/browser/{name}::test_x") for name in BROWSER_MODULES}
    assert units == {"browser-1", "browser-2"}


def test_browser_tests_come_after_every_other_test() -> None:
    ordered = sorted(SOME_TESTS, key=run_order)
    browser = [is_browser_test(nodeid) for nodeid in ordered]
    assert browser == sorted(browser), ordered
    assert browser.count(True) == len(BROWSER_MODULES)
    # Within the browser tests, one group after the other (each group is one contiguous unit).
    groups = [work_unit(nodeid) for nodeid in ordered if is_browser_test(nodeid)]
    assert groups == sorted(groups)


def test_long_modules_come_first_and_costly_module_fixtures_are_one_unit() -> None:
    ordered = sorted(SOME_TESTS, key=run_order)
    assert module_names(ordered[:2]) == {"tests/rules/test_property.py", "tests/test_wheel.py"}
    wheel = next(n for n in SOME_TESTS if n.startswith("tests/test_wheel.py"))
    assert work_unit(wheel) == "tests/test_wheel.py"
    assert work_unit(SOME_TESTS[0]) == SOME_TESTS[0]  # an ordinary test is its own unit


def module_names(nodeids: list[str]) -> set[str]:
    return {nodeid.split("::", 1)[0] for nodeid in nodeids}
