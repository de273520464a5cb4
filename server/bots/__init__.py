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

from dataclasses import dataclass
from types import MappingProxyType

from .base import Bot
from .easy import EasyBot
from .hard import HardBot
from .normal import NormalBot
from .simple import SimpleBot


@dataclass(frozen=True, slots=True)
class Difficulty:
    """One computer difficulty: its wire name, the words a client shows, and its bot.

    >>> DIFFICULTIES["hard"]
    DIFFICULTIES['hard']
    >>> [d.label for d in DIFFICULTIES.values()]
    ['Easy', 'Normal', 'Hard']
    """

    name: str
    label: str
    description: str
    bot: type[Bot]
    slow: bool = False
    """Thinks for tens of milliseconds: the service computes its moves away from the event loop."""

    def __repr__(self) -> str:
        return f"DIFFICULTIES[{self.name!r}]"


DIFFICULTIES: MappingProxyType[str, Difficulty] = MappingProxyType(
    {
        d.name: d
        for d in (
            Difficulty("easy", "Easy", "Relaxed: misses chances and keeps high cards too long.", EasyBot),
            Difficulty("normal", "Normal", "Solid and greedy: knocks as soon as it can.", NormalBot),
            Difficulty(
                "hard",
                "Hard",
                "Tracks every card, avoids feeding you and simulates the rest of the hand.",
                HardBot,
                slow=True,
            ),
        )
    }
)
"""The computer's difficulties, easiest first: the one list every name is derived from."""


BASELINES: MappingProxyType[str, type[Bot]] = MappingProxyType({"simple": SimpleBot})
"""Players that are not difficulties (nobody chooses them): the bot ladder's ``simple`` baseline."""


def make_bot(difficulty: str, seed: int | str = 0, **options: int) -> Bot:
    """A computer player of ``difficulty`` (or a baseline of :data:`BASELINES`). ``options``
    tune Hard's simulation budget (``worlds``, ``candidates``); the defaults are the real
    configuration."""
    if isinstance(difficulty, str) and difficulty in BASELINES:
        return BASELINES[difficulty](seed)
    found = DIFFICULTIES.get(difficulty) if isinstance(difficulty, str) else None
    if found is None:
        raise ValueError(f"unknown difficulty {difficulty!r}; expected one of {list(DIFFICULTIES)}")
    return found.bot(seed, **options)


__all__ = [
    "BASELINES",
    "DIFFICULTIES",
    "Bot",
    "Difficulty",
    "EasyBot",
    "HardBot",
    "NormalBot",
    "SimpleBot",
    "make_bot",
]
