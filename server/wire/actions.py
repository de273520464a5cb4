"""The wire shapes of a move: the five actions a seat may play (in ``act``, among a view's legal
actions, in records and analyses), tagged by ``kind``. Nothing here does I/O or holds game
logic."""

from __future__ import annotations

from server.rules import Source

from .fields import Card, _Wire


class TakeUpcard(_Wire, tag="take_upcard", tag_field="kind"):
    """Take the upcard (the first face-up card), in the upcard phase."""


class Pass(_Wire, tag="pass", tag_field="kind"):
    """Pass on the upcard."""


class Draw(_Wire, tag="draw", tag_field="kind"):
    """Draw the top card of the stock or of the discard pile."""

    source: Source


class Discard(_Wire, tag="discard", tag_field="kind"):
    """Discard a card (not the one just taken from the discard pile)."""

    card: Card


class Knock(_Wire, tag="knock", tag_field="kind"):
    """Discard ``card`` and knock: gin when no deadwood is left."""

    card: Card


Action = TakeUpcard | Pass | Draw | Discard | Knock
