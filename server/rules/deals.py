"""How a match's hands are dealt: the deal schemes, by name (``DEALS``).

A scheme turns the match's secret seed and a hand's number into that hand's seed, and a hand's
seed into the deck order (card numbers 0..51: ``Ac 2c .. Kc Ad .. Kd Ah .. Kh As .. Ks``, the
index of :class:`~server.rules.cards.Card`). The deal takes the deck in order: ten cards to seat
0, ten to seat 1, the upcard, then the stock, top first.

``sha256`` (every new match) is verifiable, and written up exactly, with test vectors, in
``docs/deals.md`` so that any language re-derives it:

- hand seed = hex SHA-256 of ``f"{match_seed}:{n}"``: one-way, so revealing a finished hand's
  seed reveals neither the match seed nor any other hand;
- commitment = hex SHA-256 of the hand seed, shown at the start of the hand (it hides the
  seed, a 256-bit secret, and binds the server to it);
- deck = Fisher-Yates over a SHA-256 counter-mode byte stream (block ``i`` is SHA-256 of
  ``f"{hand_seed}:{i}"``), one byte per draw with rejection sampling (no modulo bias).

``legacy`` is how matches were dealt before: Python's ``random.Random(f"{seed}:{n}").shuffle``,
not re-derivable elsewhere and without a commitment. Old matches keep it, so they replay
exactly as they were played.

Pure: ``hashlib`` and a private ``random.Random`` for ``legacy``; never the global generator.

>>> from server.rules.cards import DECK
>>> seed = SHA256.hand_seed("example", 1)
>>> seed[:16], SHA256.commitment(seed)[:16]
('750677e9b953845b', 'd39634f5c2062113')
>>> " ".join(DECK[i].code for i in SHA256.deck(seed)[:10])  # seat 0's ten cards
'4s Qh Kd 4h Qc Ac Ks 3d Tc 9d'
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def byte_stream(hand_seed: str) -> Iterator[int]:
    """The scheme's bytes: SHA-256 of ``f"{hand_seed}:0"``, then of ``":1"``, ... concatenated."""
    block = 0
    while True:
        yield from hashlib.sha256(f"{hand_seed}:{block}".encode()).digest()
        block += 1


def sha256_deck(hand_seed: str) -> list[int]:
    """The deck order for ``hand_seed``: Fisher-Yates from the top index down, each swap index
    ``j`` in ``0..i`` from one byte ``b`` of :func:`byte_stream`, rejected when
    ``b >= 256 - 256 % (i + 1)`` (so every ``j`` is equally likely), else ``j = b % (i + 1)``."""
    deck = list(range(52))
    stream = byte_stream(hand_seed)
    for i in range(51, 0, -1):
        n = i + 1
        limit = 256 - 256 % n
        b = next(stream)
        while b >= limit:
            b = next(stream)
        j = b % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@dataclass(frozen=True, slots=True)
class DealScheme:
    """One way of dealing. ``verifiable``: a hand's seed can be revealed and re-checked (it
    reveals nothing else), and the view carries a commitment to it."""

    name: str
    verifiable: bool

    def hand_seed(self, match_seed: str, number: int) -> str:
        """Hand ``number``'s seed (secret until the hand is over)."""
        text = f"{match_seed}:{number}"
        return _sha256_hex(text) if self.verifiable else text

    def commitment(self, hand_seed: str) -> str | None:
        """What the view shows at the start of the hand; ``None`` for a legacy deal."""
        return _sha256_hex(hand_seed) if self.verifiable else None

    def deck(self, hand_seed: str) -> list[int]:
        """The deck order (card numbers, first dealt first)."""
        if self.verifiable:
            return sha256_deck(hand_seed)
        deck = list(range(52))
        random.Random(hand_seed).shuffle(deck)
        return deck


LEGACY = DealScheme("legacy", verifiable=False)
SHA256 = DealScheme("sha256", verifiable=True)

DEALS: dict[str, DealScheme] = {s.name: s for s in (LEGACY, SHA256)}
"""Every deal scheme by name: the names the database, the wire and the clients use."""

DEFAULT_DEAL = SHA256.name
"""The scheme of every new match."""


def deal_named(name: str) -> DealScheme:
    """The scheme called ``name``; ``ValueError`` for an unknown one."""
    try:
        return DEALS[name]
    except KeyError:
        raise ValueError(f"unknown deal scheme {name!r} (expected one of {sorted(DEALS)})") from None
