"""The views' faster constructor (server/rules/frozen.py) makes what the dataclass's own does."""

from __future__ import annotations

import dataclasses
import pickle
import random

import pytest

from server.rules import MatchView, SeatView, new_match
from server.rules.frozen import fast_constructor


def _views():
    rng = random.Random(7)
    m = new_match("house", "frozen")
    for _ in range(60):
        if m.outcome is not None:
            break
        for seat in (0, 1, None):
            yield m.view(seat)
        m.apply(rng.choice(m.legal_actions(m.to_act)), m.to_act)


def test_a_view_is_the_one_its_class_would_make_and_stays_frozen():
    seen = 0
    for made in _views():
        for view in (made, made.hand):
            cls = type(view)
            fields = {f.name: getattr(view, f.name) for f in dataclasses.fields(view)}
            assert cls in (MatchView, SeatView)
            plain = cls(**fields)
            assert view == plain and hash(view) == hash(plain) and repr(view) == repr(plain)
            assert pickle.loads(pickle.dumps(view)) == view
            with pytest.raises(dataclasses.FrozenInstanceError):
                view.seat = 1  # type: ignore[misc]
            seen += 1
    assert seen > 100


def test_defaults_positions_and_names_are_the_constructors():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Three:
        a: int
        b: str = "b"
        c: tuple[int, ...] = ()

    make = fast_constructor(Three)
    assert make(1) == Three(1)
    assert make(1, "x", (2,)) == Three(1, "x", (2,))
    assert make(c=(3,), a=2) == Three(2, c=(3,))
    with pytest.raises(TypeError):
        make()  # a is required, as for Three()


@pytest.mark.parametrize("options", [{"frozen": False, "slots": True}, {"frozen": True, "slots": False}])
def test_only_a_frozen_slotted_dataclass_is_accepted(options):
    @dataclasses.dataclass(**options)
    class Loose:
        a: int

    with pytest.raises(TypeError, match="frozen, slotted"):
        fast_constructor(Loose)


def test_a_default_factory_or_a_post_init_is_refused():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        a: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            assert self.a > 0

    for cls in (Factory, Checked):
        with pytest.raises(TypeError, match="__post_init__ or a default factory"):
            fast_constructor(cls)
