"""The service layer: live matches with one writer each, the computer's turns, persistence and
fan-out through ports (:class:`Store`, :class:`Broadcaster`) that adapters implement, and
the time and ids as inputs (:class:`Clock`, :class:`Ids`).

It depends on the rules and the bots only; it never imports aiohttp or SQLAlchemy (tests/test_layering.py)."""

from .clock import Clock, FakeClock, SystemClock
from .errors import ServiceError
from .ids import Ids, SecretIds, SequentialIds
from .matches import CreatedMatch, LiveMatch, MatchCaps, MatchService, Subscriber, hash_token
from .metrics import Metrics
from .ports import Broadcaster, InProcessBroadcaster, MatchMeta, MatchRecord, PlayerRecord, SeatUpdate, Store
from .timecontrol import PRESETS, TimeControl, Timing

__all__ = [
    "PRESETS",
    "Broadcaster",
    "Clock",
    "CreatedMatch",
    "FakeClock",
    "Ids",
    "InProcessBroadcaster",
    "LiveMatch",
    "MatchCaps",
    "MatchMeta",
    "MatchRecord",
    "MatchService",
    "Metrics",
    "PlayerRecord",
    "SeatUpdate",
    "SecretIds",
    "SequentialIds",
    "ServiceError",
    "Store",
    "Subscriber",
    "SystemClock",
    "TimeControl",
    "Timing",
    "hash_token",
]
