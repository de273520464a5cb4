"""Python client for the open Gin Rummy server: an async library, a terminal client and a bot kit.

It speaks only the public protocol (docs/protocol.md of the server: REST and WebSocket) and never
imports the server's code, so it works against any host running it.

Quick start::

    import asyncio
    from ginrummy_client import GinRummyClient, strategies

    async def main():
        client = GinRummyClient("http://127.0.0.1:8080")
        await client.create_player("Ada")
        ticket = await client.create_match(difficulty="hard")
        async with client.connect(ticket) as conn:
            final = await conn.play(strategies.quick)
        print(final.status_line)

    asyncio.run(main())

Modules: :mod:`.rest` (GinRummyClient), :mod:`.connection` (MatchConnection), :mod:`.models`
(views and actions, gathered from :mod:`.actions`, :mod:`.views`, :mod:`.results` and
:mod:`.summaries`), :mod:`.errors` (the exception tree), :mod:`.cards` (meld arithmetic),
:mod:`.strategies` (ready-made bots), :mod:`.terminal` (the terminal client, with its
:mod:`.commands` and :mod:`.rendering`), :mod:`.arena`
(your strategy against the computer, N matches), :mod:`.clocks` (time controls, clocks,
rematches), :mod:`.seeks` (quick pairing), :mod:`.verify` (check a record's deals).
"""

from .cards import best_melds, deadwood
from .clocks import MatchClock, Rematch, SeatClock, TimeControl
from .connection import MatchConnection, Strategy
from .errors import (
    BadRequest,
    Conflict,
    ConnectionLost,
    Forbidden,
    GinRummyError,
    IllegalAction,
    NotFound,
    NotYourTurn,
    ProtocolError,
    RateLimited,
    ServerError,
    StaleVersion,
    TooLarge,
    Unauthorized,
    Unavailable,
)
from .models import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    TAKE_UPCARD,
    Action,
    Event,
    HandResult,
    HandView,
    Invite,
    MatchSummary,
    MatchTicket,
    MatchView,
    Outcome,
    PlayerIdentity,
    PlayerInfo,
    RulesInfo,
    SeatTotal,
    discard,
    knock,
)
from .rest import GinRummyClient, parse_invite
from .seeks import Pairing, Seek
from .verify import DealReport, HandCheck, verify

__version__ = "0.1.0"

from .accounts import Session, SignedIn
from .ladder import LadderMatch, LadderStanding, play_ladder

__all__ = [
    "DRAW_DISCARD",
    "DRAW_STOCK",
    "PASS",
    "TAKE_UPCARD",
    "Action",
    "BadRequest",
    "Conflict",
    "ConnectionLost",
    "DealReport",
    "Event",
    "Forbidden",
    "GinRummyClient",
    "GinRummyError",
    "HandCheck",
    "HandResult",
    "HandView",
    "IllegalAction",
    "Invite",
    "LadderMatch",
    "LadderStanding",
    "MatchClock",
    "MatchConnection",
    "MatchSummary",
    "MatchTicket",
    "MatchView",
    "NotFound",
    "NotYourTurn",
    "Outcome",
    "Pairing",
    "PlayerIdentity",
    "PlayerInfo",
    "ProtocolError",
    "RateLimited",
    "Rematch",
    "RulesInfo",
    "SeatClock",
    "SeatTotal",
    "Seek",
    "ServerError",
    "Session",
    "SignedIn",
    "StaleVersion",
    "Strategy",
    "TimeControl",
    "TooLarge",
    "Unauthorized",
    "Unavailable",
    "best_melds",
    "deadwood",
    "discard",
    "knock",
    "parse_invite",
    "play_ladder",
    "verify",
]
