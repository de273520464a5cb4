"""Every shape on the wire of protocol v1, gathered in one namespace: the REST bodies (both
ways), every WebSocket message (both ways), the view and everything in it, records, presets,
difficulties and errors, as msgspec Structs. Each lives in the module of its idea and is
imported here, so ``server.wire.messages`` names the whole protocol:

- :mod:`.fields`: the field types every shape shares (card codes, seats, registries' names)
  and the base Struct;
- :mod:`.actions`: the five actions; :mod:`.views`: what a seat sees of a match;
- :mod:`.sockets`: the WebSocket messages (the lobby's seeks in :mod:`.seeks`);
- :mod:`.errors`: the error codes, the WebSocket ``error`` and the REST error body;
- :mod:`.bodies`: the REST bodies of players and matches, presets, difficulties, health;
  :mod:`.records`: a finished match's replay; :mod:`.accounts`: accounts and sessions;
  :mod:`.ratings`: ratings and the lobby;
- clocks, claims and rematches in :mod:`.timing`; bot accounts in :mod:`.ladder`.

The server encodes through these (see :mod:`server.wire.convert`), decodes client input with
them, and the JSON Schema, OpenAPI and AsyncAPI documents are generated from them
(:mod:`server.wire.schema`). A field without a default is always present; ``X | None`` may be
null; an ``UnsetType`` field is sometimes absent (and says when in its description).

Closed sets come from their registries: preset names from ``server.rules.RULES``, difficulty
names from ``server.bots.DIFFICULTIES``, phases, result kinds, sources and starter rules from the
rules' enums. Nothing here does I/O or holds game logic.
"""

from __future__ import annotations

from .accounts import (
    Account,
    AddPassword,
    PasskeyAnswer,
    PasskeyInfo,
    PasskeyList,
    PasskeyOptions,
    RevokedSessions,
    Session,
    SessionList,
    SignedIn,
    SignIn,
)
from .actions import Action, Discard, Draw, Knock, Pass, TakeUpcard
from .bodies import (
    CreatedMatch,
    CreateMatch,
    CreatePlayer,
    Difficulties,
    DifficultyInfo,
    FinishedHand,
    Health,
    Invite,
    JoinedMatch,
    JoinMatch,
    MatchDetails,
    MatchList,
    MatchSummary,
    Me,
    NewPlayer,
    RulePreset,
    RulePresets,
    Stats,
)
from .errors import Error, ErrorCode, ErrorDetail, ErrorResponse, WsErrorCode
from .fields import Opponent, Status
from .ladder import BotInfo
from .ratings import (
    ChallengeList,
    Leaderboard,
    LeaderboardEntry,
    Lobby,
    OpenChallenge,
    PlayerPage,
    PlayerRating,
    Rating,
    RatingHistory,
    RatingPoint,
)
from .records import HandRecord, MatchRecord, RecordedAction
from .seeks import CancelSeek, Paired, Seek, SeekCancelled, Seeking
from .sockets import (
    Ack,
    Act,
    ClientMessage,
    Hello,
    LobbyClientMessage,
    LobbyServerMessage,
    Ping,
    Pong,
    ServerMessage,
    State,
)
from .timing import MatchClock, Rematch, SeatClock, TimeControl
from .views import (
    Event,
    HandResult,
    HandView,
    Layoff,
    Outcome,
    Player,
    RulesView,
    SeatPlayer,
    SeatTotal,
    View,
)

__all__ = [
    "Account",
    "Ack",
    "Act",
    "Action",
    "AddPassword",
    "BotInfo",
    "CancelSeek",
    "ChallengeList",
    "ClientMessage",
    "CreateMatch",
    "CreatePlayer",
    "CreatedMatch",
    "Difficulties",
    "DifficultyInfo",
    "Discard",
    "Draw",
    "Error",
    "ErrorCode",
    "ErrorDetail",
    "ErrorResponse",
    "Event",
    "FinishedHand",
    "HandRecord",
    "HandResult",
    "HandView",
    "Health",
    "Hello",
    "Invite",
    "JoinMatch",
    "JoinedMatch",
    "Knock",
    "Layoff",
    "Leaderboard",
    "LeaderboardEntry",
    "Lobby",
    "LobbyClientMessage",
    "LobbyServerMessage",
    "MatchClock",
    "MatchDetails",
    "MatchList",
    "MatchRecord",
    "MatchSummary",
    "Me",
    "NewPlayer",
    "OpenChallenge",
    "Opponent",
    "Outcome",
    "Paired",
    "Pass",
    "PasskeyAnswer",
    "PasskeyInfo",
    "PasskeyList",
    "PasskeyOptions",
    "Ping",
    "Player",
    "PlayerPage",
    "PlayerRating",
    "Pong",
    "Rating",
    "RatingHistory",
    "RatingPoint",
    "RecordedAction",
    "Rematch",
    "RevokedSessions",
    "RulePreset",
    "RulePresets",
    "RulesView",
    "SeatClock",
    "SeatPlayer",
    "SeatTotal",
    "Seek",
    "SeekCancelled",
    "Seeking",
    "ServerMessage",
    "Session",
    "SessionList",
    "SignIn",
    "SignedIn",
    "State",
    "Stats",
    "Status",
    "TakeUpcard",
    "TimeControl",
    "View",
    "WsErrorCode",
]
