"""The rules engine's exceptions.

::

    RulesError                  base; every error has a stable machine ``code``
    ├── InvalidActionError      malformed input: not an action / not a card code  (bad_message)
    │   └── InvalidCardError
    ├── IllegalActionError      well-formed but not legal now                     (illegal_action)
    └── NotYourTurnError        a seat acted out of turn                          (not_your_turn)

An error never changes the state it was raised from.
"""

from __future__ import annotations


class RulesError(Exception):
    code = "rules_error"


class InvalidActionError(RulesError, ValueError):
    code = "bad_message"


class InvalidCardError(InvalidActionError):
    pass


class IllegalActionError(RulesError):
    code = "illegal_action"


class NotYourTurnError(RulesError):
    code = "not_your_turn"
