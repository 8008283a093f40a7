"""Independent copies of the rules' mutable objects (a deal, an auction, a session), field by field.

Bots, tests and the table try actions on a copy and keep the original untouched, so a copy must not
share anything that changes. Listing by hand which fields to copy is how a field gets forgotten (and
then silently shared); here every field is copied by its type, and a class only names the fields that
are safe to share because they never change (its ruleset, its resolved house rules).

What is shared, what is copied:

- values that cannot change are shared: None, numbers, strings, tuples, frozensets, enums and frozen
  dataclasses (a tuple is taken to hold only values that never change);
- lists and dicts are copied with their items copied in turn; a set's items are hashable, so shared;
- an object with a `clone()` method is copied by it; any other object field by field, like its owner.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")

#: Exact types whose values never change: the fast path of `independent`.
_ATOMS: frozenset[type] = frozenset({type(None), bool, int, float, str, bytes, tuple, frozenset})


def independent(value: T) -> T:
    """A copy of `value` that shares nothing that can change."""
    return _copy(value)  # type: ignore[no-any-return]


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list:
        return [_copy(item) for item in value]
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}
    if kind is set:
        return set(value)
    if isinstance(value, tuple | frozenset | Enum) or _frozen_dataclass(value):
        return value
    clone = getattr(value, "clone", None)
    if callable(clone):
        return clone()
    return copy_fields(value)


def copy_fields(obj: T, shared: Collection[str] = (), items_shared: Collection[str] = ()) -> T:
    """A copy of `obj` with every field made `independent`, except those named.

    `shared`: fields that never change after construction, shared as they are. `items_shared`: lists
    only ever appended to, whose items never change once added: the list is copied, its items shared.
    """
    cls = type(obj)
    twin = cls.__new__(cls)
    for name in _field_names(obj):
        if not hasattr(obj, name):  # a slot never assigned
            continue
        value = getattr(obj, name)
        if name in shared:
            copied = value
        elif name in items_shared:
            copied = list(value)
        else:
            copied = independent(value)
        object.__setattr__(twin, name, copied)
    return twin


def _field_names(obj: object) -> list[str]:
    """The instance fields of `obj`: its `__dict__` and the `__slots__` of its classes."""
    names = list(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__"):
                names.append(name)
    return names


def _frozen_dataclass(value: object) -> bool:
    params = getattr(value, "__dataclass_params__", None)
    return params is not None and dataclasses.is_dataclass(value) and bool(params.frozen)
