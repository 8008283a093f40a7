"""Independent copies of the rules' mutable objects (a deal, its auction and tricks, a session).

Bots, tests and the table try actions on a copy and keep the original untouched, so a copy must share
nothing that changes. A copy written by hand, field by field, is how a field gets forgotten and then
silently shared. Here each class states a `CopyPlan` once: every one of its fields, either shared (a
value that never changes in place: a number, a string, a tuple, a frozen dataclass, the ruleset) or
copied by a named copier. `CopyPlan.copy` refuses an object that has a field its plan does not name,
so a field added later and forgotten fails the first copy (every test that copies a deal), instead of
being shared. tests/rules/test_copying.py checks, at any depth, that no copied part is shared.

The plan is applied at C speed where it can be (every field shared in one update, then only the copied
ones replaced): a deal is copied on every action the table applies, so a generic deep copy would cost
several times more.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Set
from typing import Any, TypeVar

T = TypeVar("T")

#: A function returning an independent copy of a field's value.
Copier = Callable[[Any], Any]


class CopyPlan:
    """How a class is copied: each field shared or copied, every field named exactly once."""

    def __init__(self, owner: str, shared: Iterable[str], copied: Mapping[str, Copier]) -> None:
        self.owner = owner
        shared = frozenset(shared)
        both = shared & set(copied)
        if both:
            raise ValueError(f"{owner}: fields both shared and copied: {sorted(both)}")
        self.fields = shared | frozenset(copied)
        self.shared = tuple(shared)
        self.copied = tuple(copied.items())
        self._slotted: set[type] = set()  # classes with slots whose slots matched the plan

    def copy(self, obj: T) -> T:
        """A copy of `obj` sharing the shared fields and holding a copy of each copied one."""
        cls = type(obj)
        twin = cls.__new__(cls)
        if hasattr(obj, "__dict__"):
            fields = obj.__dict__
            self._check(fields.keys())
            mine = twin.__dict__
            mine.update(fields)
            for name, copier in self.copied:
                mine[name] = copier(fields[name])
            return twin
        if cls not in self._slotted:  # slots are fixed with the class: checked once per class
            self._check(_slots(cls))
            self._slotted.add(cls)
        for name in self.shared:
            object.__setattr__(twin, name, getattr(obj, name))
        for name, copier in self.copied:
            object.__setattr__(twin, name, copier(getattr(obj, name)))
        return twin

    def _check(self, names: Iterable[str]) -> None:
        if not isinstance(names, Set):
            names = frozenset(names)
        if names != self.fields:
            unknown = sorted(set(names) - self.fields)
            missing = sorted(self.fields - set(names))
            raise TypeError(f"{self.owner}: its copy plan does not match its fields: not in the plan "
                            f"{unknown}, not on the object {missing}")


#: The instance slots of each class copied so far (see `_slots`).
_SLOTS: dict[type, tuple[str, ...]] = {}


def _slots(cls: type) -> tuple[str, ...]:
    """The instance slots of `cls` and of the classes it derives from."""
    found = _SLOTS.get(cls)
    if found is None:
        names: list[str] = []
        for klass in cls.__mro__:
            slots = klass.__dict__.get("__slots__", ())
            names += [name for name in ((slots,) if isinstance(slots, str) else slots)
                      if name not in ("__dict__", "__weakref__")]
        found = _SLOTS[cls] = tuple(names)
    return found


# ---------------------------------------------------------------- copiers


# A field that always holds a list, dict or set whose items never change once added is copied by the
# container's own method (`list.copy`, `dict.copy`, `set.copy`: C code, no Python call).


def container(value: Any) -> Any:
    """A list, dict or set copied, its items shared (they never change once added); None stays None."""
    return None if value is None else value.copy()


def sets_in_list(value: list[set[Any]]) -> list[set[Any]]:
    """A list of sets (the hands), each set copied."""
    return [items.copy() for items in value]


def sets_in_dict(value: dict[Any, set[Any]]) -> dict[Any, set[Any]]:
    """A dict of sets, each set copied."""
    return {key: items.copy() for key, items in value.items()}


def cloned(value: Any) -> Any:
    """An object copied by its own `clone()`; None stays None."""
    return None if value is None else value.clone()


def emptied(value: Any) -> dict[Any, Any]:
    """A cache, started afresh (the copy fills its own)."""
    return {}
