"""The service layer: live matches with one writer each, the computer's turns, persistence and
fan-out through ports (:class:`Store`, :class:`Broadcaster`) that adapters implement.

It depends on the rules and the bots only; it never imports aiohttp or SQLAlchemy."""

from .errors import ServiceError
from .matches import CreatedMatch, LiveMatch, MatchService, Subscriber, hash_token
from .metrics import Metrics
from .ports import Broadcaster, InProcessBroadcaster, MatchMeta, MatchRecord, PlayerRecord, SeatUpdate, Store

__all__ = [
    "Broadcaster",
    "CreatedMatch",
    "InProcessBroadcaster",
    "LiveMatch",
    "MatchMeta",
    "MatchRecord",
    "MatchService",
    "Metrics",
    "PlayerRecord",
    "SeatUpdate",
    "ServiceError",
    "Store",
    "Subscriber",
    "hash_token",
]
