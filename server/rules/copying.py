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

from collections.abc import Callable, Collection
from enum import Enum
from typing import Any, TypeVar

T = TypeVar("T")

#: Exact types whose values never change, shared without a look inside: the builtin ones, and each
#: enum or frozen dataclass met so far (added by `_copier_for`).
_ATOMS: set[type] = {type(None), bool, int, float, str, bytes, tuple, frozenset}


def independent(value: T) -> T:
    """A copy of `value` that shares nothing that can change."""
    return _copy(value)  # type: ignore[no-any-return]


def copy_fields(obj: T, shared: Collection[str] = (), items_shared: Collection[str] = ()) -> T:
    """A copy of `obj` with every field made `independent`, except those named.

    `shared`: fields that never change after construction, shared as they are. `items_shared`: lists or
    dicts whose items never change once added (a log only appended to, a cache of lists handed out as
    copies): the container is copied, its items shared.
    """
    cls = type(obj)
    twin = cls.__new__(cls)
    if hasattr(obj, "__dict__"):  # the comprehension is `_field`, written out: a copy runs on every action
        twin.__dict__.update({
            name: value if type(value) in _ATOMS or name in shared
            else value.copy() if name in items_shared else _copy(value)
            for name, value in obj.__dict__.items()})
    for name in _SLOTS.get(cls) or _slots(cls):
        if hasattr(obj, name):  # a slot never assigned stays unassigned
            object.__setattr__(twin, name, _field(name, getattr(obj, name), shared, items_shared))
    return twin


def _field(name: str, value: Any, shared: Collection[str], items_shared: Collection[str]) -> Any:
    """`value` shared, copied as a container of shared items, or made `independent`."""
    if type(value) in _ATOMS or name in shared:
        return value
    if name in items_shared:
        return value.copy()
    return _copy(value)


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind in _ATOMS:
        return value
    copier = _COPIERS.get(kind)
    if copier is None:
        copier = _COPIERS[kind] = _copier_for(kind)
    return copier(value)


def _share(value: Any) -> Any:
    return value


def _copy_list(value: list[Any]) -> list[Any]:
    return [item if type(item) in _ATOMS else item.copy() if type(item) is set else _copy(item)
            for item in value]


def _copy_set(value: set[Any]) -> set[Any]:
    return value.copy()  # the items of a set are hashable: values that never change


def _copy_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    return {key: item if type(item) in _ATOMS else item.copy() if type(item) is set else _copy(item)
            for key, item in value.items()}


def _clone(value: Any) -> Any:
    return value.clone()


#: How each type met so far is copied (filled by `_copier_for` the first time a type is met).
_COPIERS: dict[type, Callable[[Any], Any]] = {list: _copy_list, dict: _copy_dict, set: _copy_set}


def _copier_for(kind: type) -> Callable[[Any], Any]:
    """Share a type whose values never change; copy an object by its `clone()`, else field by field."""
    params = getattr(kind, "__dataclass_params__", None)
    if issubclass(kind, tuple | frozenset | Enum) or (params is not None and params.frozen):
        _ATOMS.add(kind)
        return _share
    if issubclass(kind, list | dict | set):
        raise TypeError(f"no generic copy for {kind.__name__}, a subclass of a container")
    if callable(getattr(kind, "clone", None)):
        return _clone
    return copy_fields


#: The instance slots of each class met so far (see `_slots`).
_SLOTS: dict[type, tuple[str, ...]] = {}


def _slots(cls: type) -> tuple[str, ...]:
    """The instance slots of `cls` and of the classes it derives from (remembered in `_SLOTS`)."""
    names: list[str] = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names += [name for name in ((slots,) if isinstance(slots, str) else slots)
                  if name not in ("__dict__", "__weakref__")]
    _SLOTS[cls] = found = tuple(names)
    return found
