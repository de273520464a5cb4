"""The common shape of a computer player: ``choose(view) -> action``.

A bot is handed a :class:`~server.rules.SeatView` and nothing else: no reference to the hand
state, so it cannot see the other hand or the stock order however it is written. ``choose``
refuses anything that is not a seat view with a seat to play, and always answers with one of the
view's own ``legal_actions``.

All randomness comes from the bot's private ``random.Random`` (``rng``), made anew for every
decision, seeded from the bot's seed and the view itself (never the global generator or the
clock). So an action is a function of (seed, view) alone: the same seed and view give the same
action, in any order, and a bot rebuilt after a server restart plays exactly as the one it
replaces.
"""

from __future__ import annotations

import random

from server.rules import Action, Discard, Draw, Knock, Pass, Phase, SeatView, Source, TakeUpcard
from server.rules.cards import to_mask


class Bot:
    """Base class of the three difficulties: validates the view and dispatches on its phase."""

    difficulty = "base"
    """The name of the difficulty (a key of :data:`server.bots.DIFFICULTIES`)."""

    def __init__(self, seed: int | str = 0) -> None:
        if not isinstance(seed, int | str):
            raise TypeError("a bot's seed is an int or a str")
        self.seed = seed
        self._rng: random.Random | None = None
        self._view: SeatView | None = None
        """The view of the decision under way: its generator is seeded from it when first used."""

    @property
    def rng(self) -> random.Random:
        """The generator of the decision under way (seeded by :meth:`choose` from the view). It
        is made when a decision first asks for it (many decisions draw nothing: seeding one
        from its text costs more than most of them) and dropped when the decision ends: its
        state is 2.5 KB, which every bot kept for a live match against the computer would
        otherwise hold between its moves."""
        if self._rng is None:
            view = self._view
            # The difficulty is in the seed so that two difficulties given one seed do not play alike.
            self._rng = (
                random.Random()
                if view is None
                else random.Random(f"{self.difficulty}:{self.seed}:{view_key(view)}")
            )
        return self._rng

    def __repr__(self) -> str:
        return f"make_bot({self.difficulty!r}, {self.seed!r})"

    def choose(self, view: SeatView) -> Action:
        if type(view) is not SeatView:
            raise TypeError(f"a bot plays from a SeatView only, not {type(view).__name__}")
        if view.seat is None or view.to_act != view.seat or not view.legal_actions:
            raise ValueError("the bot was asked to act when it has no legal action")
        self._view, self._rng = view, None
        try:
            return self._decide(view)
        finally:
            self._view = self._rng = None

    def _decide(self, view: SeatView) -> Action:
        if view.phase is Phase.UPCARD:
            take = self.take_upcard(view)
            return _pick(view, TakeUpcard() if take else Pass())
        if view.phase is Phase.DRAW:
            if Draw(Source.DISCARD) in view.legal_actions and self.take_discard(view):
                return _pick(view, Draw(Source.DISCARD))
            return _pick(view, Draw(Source.STOCK))
        action = self.discard(view)
        return _pick(view, action)

    # --- the three decisions; subclasses implement them ---------------------------------------

    def take_upcard(self, view: SeatView) -> bool:
        """UPCARD phase: take the upcard (True) or pass."""
        return self.take_discard(view)

    def take_discard(self, view: SeatView) -> bool:
        """DRAW phase: take the top of the discard pile (True) or draw from the stock."""
        raise NotImplementedError

    def discard(self, view: SeatView) -> Discard | Knock:
        """DISCARD phase: the discard, or the knock with its discard."""
        raise NotImplementedError


def _pick(view: SeatView, action: Action) -> Action:
    """The view's own legal action equal to ``action`` (a bot never invents an action)."""
    for a in view.legal_actions:
        if a == action:
            return a
    raise AssertionError(f"{action!r} chosen but not legal in {view.legal_actions!r}")


def own_mask(view: SeatView) -> int:
    return to_mask(view.hand)


def top_of_pile(view: SeatView) -> int:
    return view.discard_pile[-1].index


def taken_index(view: SeatView) -> int:
    card = view.upcard_taken
    return card.index if card is not None else -1


def view_key(view: SeatView) -> str:
    """A compact text of everything in the view a decision depends on."""
    history = "".join(
        f"{e.seat}{e.kind[0]}{e.card.code if e.card else ''}{e.source.value[0] if e.source else ''}"
        for e in view.history
    )
    hand = "".join(sorted(c.code for c in view.hand))
    pile = "".join(c.code for c in view.discard_pile)
    key = f"{view.rules.name}|{view.seat}|{view.starter}|{view.phase.value}|{hand}|{pile}|{history}|{view.stock_count}"
    # The match score joins the key only once it is not 0-0, so a first hand keeps its old key.
    return key if view.scores == (0, 0) else f"{key}|{view.scores[0]}-{view.scores[1]}"
