"""A faster constructor for a frozen, slotted dataclass, for the views built on every move.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` (frozen
classes forbid their own), about 0.2 us a field: for :class:`~server.rules.SeatView` (18 fields)
4.0 us, the larger part of building a view, and the server builds one per seat per move. The
constructor made here sets each slot through its descriptor instead (1.8 us): the same object
(same class, fields, equality, hash and pickling), made faster. Like ``dataclasses`` itself it
writes the function's source and compiles it once, when the module defining the class loads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """A function taking ``cls``'s fields (by position or name, with the same defaults) and
    returning the instance its ``__init__`` would. Only for a frozen, slotted dataclass with no
    ``__post_init__`` and no default factory (refused otherwise).

    >>> @dataclasses.dataclass(frozen=True, slots=True)
    ... class Point:
    ...     x: int
    ...     y: int = 0
    >>> make = fast_constructor(Point)
    >>> make(1), make(x=2, y=3) == Point(2, 3)
    (Point(x=1, y=0), True)
    """
    if "__mypyc_attrs__" in cls.__dict__:
        # Compiled by mypyc (a wheel, setup.py): a native class, whose own constructor sets its
        # fields directly (no object.__setattr__ to go around).
        return cls
    options = cls.__dict__.get("__dataclass_params__")
    if options is None or not options.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen, slotted dataclass")
    params = dataclasses.fields(cls)  # type: ignore[arg-type]
    if hasattr(cls, "__post_init__") or any(f.default_factory is not dataclasses.MISSING for f in params):
        raise TypeError(f"{cls.__name__} has a __post_init__ or a default factory")
    names = [f.name for f in params]
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    signature = []
    for f in params:
        env[f"_set_{f.name}"] = cls.__dict__[f.name].__set__  # the slot's member descriptor
        if f.default is dataclasses.MISSING:
            signature.append(f.name)
        else:
            env[f"_default_{f.name}"] = f.default
            signature.append(f"{f.name}=_default_{f.name}")
    lines = [f"def make({', '.join(signature)}):", "    self = _new(_cls)"]
    lines += [f"    _set_{n}(self, {n})" for n in names]
    lines.append("    return self")
    exec("\n".join(lines), env)  # our own source, from the class's field names
    make: Callable[..., T] = env["make"]
    make.__qualname__ = make.__name__ = f"make_{cls.__name__}"
    make.__doc__ = f"A {cls.__name__}, as its constructor makes it (see server.rules.frozen)."
    return make
