"""The rules engine's exceptions.

::

    RulesError                  base; every error has a stable machine ``code``
    ├── InvalidActionError      malformed input: not an action / not a card code  (bad_request)
    │   └── InvalidCardError
    ├── IllegalActionError      well-formed but not legal now                     (illegal_action)
    └── NotYourTurnError        a seat acted out of turn                          (not_your_turn)

An error never changes the state it was raised from. The transport maps ``code`` to its wire
errors and HTTP statuses in one place; the messages are meant for people.

>>> from server.rules import Action, RulesError
>>> try:
...     Action.from_wire({"kind": "discard", "card": "10h"})
... except RulesError as e:
...     print(e.code, "-", e)
bad_request - not a card code: '10h' (expected e.g. 'Td', '7h', 'As')
"""

from __future__ import annotations


class RulesError(Exception):
    """Base of every rules error; ``code`` is stable and machine-readable."""

    code = "rules_error"


class InvalidActionError(RulesError, ValueError):
    """Malformed input: not an action, an unknown kind, unknown or missing fields."""

    code = "bad_request"


class InvalidCardError(InvalidActionError):
    """A card code that is not one of the 52 (``"10h"``, ``"as"``, ``7``...)."""


class IllegalActionError(RulesError):
    """A well-formed action the rules do not allow now (wrong phase, a card not held, the card
    just taken from the discard pile, a knock over the limit, the hand or match is over)."""

    code = "illegal_action"


class NotYourTurnError(RulesError):
    """A seat acted when it was the other seat's turn."""

    code = "not_your_turn"


class UnknownRulesError(RulesError, KeyError):
    """A rule set name that is not one of :data:`~server.rules.RULES` (``"house"``, ``"classic"``)."""

    code = "bad_request"

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0]) if self.args else ""
