"""Computer opponents: Easy, Normal and Hard.

Interface (stable; the match service relies on it)::

    bot = make_bot("easy" | "normal" | "hard", seed)
    action = bot.choose(view)      # view: server.rules.SeatView of the bot's seat

A bot receives only its seat's :class:`~server.rules.SeatView` (own cards, counts, the public
discard pile and history, the legal actions) and returns one of ``view.legal_actions``. It never
receives the hand state, so it cannot see the other hand or the stock order; a simulating bot
guesses those cards itself. Same seed and same views give the same actions: each bot draws its
randomness from a private ``random.Random`` seeded from ``seed``.

- ``easy``: relaxed; misses chances, keeps high cards too long, ignores the opponent.
- ``normal``: solid greedy; takes a discard that makes or extends a meld, throws its highest
  useless card, knocks as soon as it can.
- ``hard``: tracks every card seen, estimates the opponent's hand, avoids feeding it, and
  simulates the rest of the hand over sampled hidden cards to choose draws, discards and when
  to knock.
"""

from __future__ import annotations

from .base import Bot
from .easy import EasyBot
from .hard import HardBot
from .normal import NormalBot

LEVELS = ("easy", "normal", "hard")

_CLASSES: dict[str, type[Bot]] = {"easy": EasyBot, "normal": NormalBot, "hard": HardBot}


def make_bot(level: str, seed: int | str = 0, **options: int) -> Bot:
    """A computer player of ``level``. ``options`` tune Hard's simulation budget
    (``worlds``, ``candidates``); the defaults are the real configuration."""
    cls = _CLASSES.get(level) if isinstance(level, str) else None
    if cls is None:
        raise ValueError(f"unknown level {level!r}; expected one of {LEVELS}")
    return cls(seed, **options)


__all__ = ["LEVELS", "Bot", "EasyBot", "HardBot", "NormalBot", "make_bot"]
