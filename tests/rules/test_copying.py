"""Copying a deal or an auction cannot forget a field: a copy shares nothing that changes.

`Deal.clone` and the auctions' `clone` follow a copy plan naming every field (`server/rules/copying.py`),
and refuse an object with a field the plan does not name. These tests walk every field of a copy, at
any depth, and check that each mutable part is a new object, then mutate every one of them and check
that the original did not move. A field added later is walked too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from server.rules import Deal
from server.rules.copying import CopyPlan, container
from server.rules.deal import _DEAL_COPY
from server.rules.variants.belgian import BelgianAuction
from server.rules.variants.solo_whist import SoloWhistAuction

#: Fields that never change once built, shared on purpose (the ruleset, its data, the house rules).
SHARED = {"ruleset", "data", "house_rules"}
#: Containers whose items never change once added, shared on purpose (see `_DEAL_COPY`).
ITEMS_SHARED = {"log", "calls", "tricks", "announcements"}
SENTINEL = "sentinel-added-by-the-test"


def fields(obj: object) -> dict[str, Any]:
    """Every instance field of `obj`: its `__dict__` and its assigned slots."""
    found = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for name in cls.__dict__.get("__slots__", ()):
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                found[name] = getattr(obj, name)
    return found


def immutable(value: object) -> bool:
    params = getattr(value, "__dataclass_params__", None)
    return value is None or isinstance(value, bool | int | float | str | tuple | frozenset) or (
        params is not None and bool(params.frozen))


def mutable_parts(obj: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, part) for every mutable part reachable from `obj`, skipping what is shared on purpose."""
    if immutable(obj) or callable(obj):
        return
    yield path, obj
    if path.rsplit(".", 1)[-1] in ITEMS_SHARED:
        return
    if isinstance(obj, list):
        for index, item in enumerate(obj):
            yield from mutable_parts(item, f"{path}[{index}]")
    elif isinstance(obj, dict):
        for key, item in obj.items():
            yield from mutable_parts(item, f"{path}[{key!r}]")
    elif not isinstance(obj, set):
        for name, value in fields(obj).items():
            if name not in SHARED:
                yield from mutable_parts(value, f"{path}.{name}")


def snapshot(obj: Any) -> str:
    """Everything `mutable_parts` reaches, written out."""
    return "\n".join(f"{path} {_written(part)}" for path, part in mutable_parts(obj))


def _written(part: Any) -> str:
    if isinstance(part, set):
        return repr(sorted(map(repr, part)))
    return repr(part) if isinstance(part, list | dict) else repr(fields(part))


def mutate(part: Any) -> None:
    if isinstance(part, list):
        part.append(SENTINEL)
    elif isinstance(part, set):
        part.add(SENTINEL)
    elif isinstance(part, dict):
        part[SENTINEL] = SENTINEL
    else:
        for name in fields(part):
            object.__setattr__(part, name, SENTINEL)


def played(ruleset: str, seed: str, actions: int, house_rules: dict[str, Any] | None = None) -> Deal:
    """A deal from `seed` after `actions` actions, each the (actions-th mod n) legal action, so that the
    auction gets teams, passes and lapsed proposals rather than only passes."""
    deal = Deal.from_seed(ruleset, seed, 0, house_rules)
    for step in range(actions):
        if deal.finished:
            break
        seat = min(deal.to_act())
        legal = deal.legal_actions(seat)
        deal.apply(seat, legal[(step * 7 + 3) % len(legal)])
    return deal


DEALS: dict[str, Callable[[], Deal]] = {
    "couleur, auction": lambda: played("couleur", "copy-1", 3),
    "couleur, play": lambda: played("couleur", "copy-2", 30),
    "belge-club, auction": lambda: played("belge-club", "copy-3", 4),
    "belge-club, play": lambda: played("belge-club", "copy-4", 25),
    "solo-whist, auction": lambda: played("solo-whist", "copy-5", 2),
    "solo-whist, play": lambda: played("solo-whist", "copy-6", 20),
    "whist, play": lambda: played("whist", "copy-7", 9),
    "couleur, over": lambda: played("couleur", "copy-8", 200),  # points and every trick set
}


@pytest.mark.parametrize("name", DEALS)
def test_a_clone_shares_no_mutable_part_with_its_deal(name: str) -> None:
    deal = DEALS[name]()
    twin = deal.clone()
    original = dict(mutable_parts(deal))
    copied = dict(mutable_parts(twin))
    assert original.keys() == copied.keys()
    assert len(original) > 10
    shared = [path for path in original if original[path] is copied[path]]
    assert shared == []


@pytest.mark.parametrize("name", DEALS)
def test_mutating_every_part_of_a_clone_leaves_the_deal_as_it_was(name: str) -> None:
    deal = DEALS[name]()
    views = [deal.view(seat) for seat in (0, 1, 2, 3, None)]  # fills the caches of legal actions
    before = snapshot(deal)
    twin = deal.clone()
    for _path, part in reversed(list(mutable_parts(twin))):  # the deepest parts first
        mutate(part)
    assert snapshot(deal) == before
    assert [deal.view(seat) for seat in (0, 1, 2, 3, None)] == views


@pytest.mark.parametrize("name", DEALS)
def test_a_clone_plays_on_to_the_same_end_as_its_deal(name: str) -> None:
    deal = DEALS[name]()
    twin = deal.clone()
    while not deal.finished:
        seat = min(deal.to_act())
        assert twin.legal_actions(seat) == deal.legal_actions(seat)
        action = deal.legal_actions(seat)[-1]
        assert twin.apply(seat, action) == deal.apply(seat, action)
    assert twin.result() == deal.result() and twin.to_record() == deal.to_record()


def test_the_belgian_and_solo_whist_auctions_are_walked() -> None:
    belgian, solo = (DEALS[name]().auction for name in ("couleur, auction", "solo-whist, auction"))
    assert isinstance(belgian, BelgianAuction) and isinstance(solo, SoloWhistAuction)
    for twin in (belgian.clone(), solo.clone()):
        paths = {path for path, _part in mutable_parts(twin)}
        assert {".passed", ".house_rules"} & paths == {".passed"}


class _Later:
    """A class grown with a field its copy plan does not name."""

    def __init__(self) -> None:
        self.rules = object()
        self.grown: list[int] = [1]


def test_a_field_missing_from_its_copy_plan_stops_the_copy() -> None:
    plan = CopyPlan("_Later", shared=("rules",), copied={})
    with pytest.raises(TypeError, match=r"not in the plan \['grown'\]"):
        plan.copy(_Later())
    copied = CopyPlan("_Later", shared=("rules",), copied={"grown": container}).copy(_Later())
    assert copied.grown == [1]


def test_every_field_of_a_deal_is_in_its_plan_at_every_stage() -> None:
    for make in DEALS.values():
        deal = make()
        assert set(vars(deal)) == _DEAL_COPY.fields
        assert set(vars(deal.clone())) == set(vars(deal))


def test_a_field_is_either_shared_or_copied() -> None:
    with pytest.raises(ValueError, match="both shared and copied"):
        CopyPlan("X", shared=("a",), copied={"a": container})
