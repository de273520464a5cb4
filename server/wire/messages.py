"""Every shape on the wire of protocol v1, once, as msgspec Structs: the REST bodies (both ways),
every WebSocket message (both ways), the view and everything in it, records, presets,
difficulties and errors.

The server encodes through these (see :mod:`server.wire.convert`), decodes client input with
them, and the JSON Schema, OpenAPI and AsyncAPI documents are generated from them
(:mod:`server.wire.schema`). A field without a default is always present; ``X | None`` may be
null; an ``UnsetType`` field is sometimes absent (and says when in its description).

Closed sets come from their registries: preset names from ``server.rules.RULES``, difficulty
names from ``server.bots.DIFFICULTIES``, phases, result kinds, sources and starter rules from the
rules' enums. Nothing here does I/O or holds game logic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

from server.bots import DIFFICULTIES
from server.rules import DEALS, RULES, Phase, ResultKind, Source, StarterRule

# Clocks, claims and rematches live in their own module; here they join the protocol.
from .ladder import BotInfo as BotInfo
from .pace import Pace  # the computer's pace, in hello
from .timing import MatchClock as MatchClock
from .timing import Rematch as Rematch
from .timing import SeatClock as SeatClock
from .timing import TimeControl as TimeControl

# Literal[...] of a registry's names: the enum in the documents follows the registry. (A type
# checker cannot see into a registry, so to it they are plain strings.)
if TYPE_CHECKING:
    RuleName = str
    DifficultyName = str
    DealName = str
else:
    RuleName = Literal[tuple(RULES)]
    DifficultyName = Literal[tuple(DIFFICULTIES)]
    DealName = Literal[tuple(DEALS)]

Card = Annotated[
    str, Meta(pattern="^[A2-9TJQK][cdhs]$", description="A card code: rank A23456789TJQK + suit cdhs")
]
Seat = Annotated[int, Meta(ge=0, le=1)]
Version = Annotated[int, Meta(ge=0)]
Timestamp = Annotated[str, Meta(extra_json_schema={"format": "date-time"}, examples=["2026-11-29T15:00:00Z"])]
MeldCards = Annotated[list[Card], Meta(description="One meld's cards, in order")]
Status = Literal["waiting", "active", "finished"]
Sha256Hex = Annotated[str, Meta(pattern="^[0-9a-f]{64}$", description="64 lowercase hex digits of a SHA-256")]

STORABLE = "^[^\\x00]*$"
"""The pattern of every client text field: no NUL, which the databases cannot store (Postgres
refuses it). Lone surrogates cannot arrive at all: msgspec's JSON decoder refuses a ``\\ud800``
escape without its pair as malformed JSON, and raw ones are not UTF-8."""
Opponent = Literal["computer", "human"]
ActionKind = Literal["take_upcard", "pass", "draw", "discard", "knock"]


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    """Strict: decoding refuses unknown fields (so a test decoding every message it sees notices
    an undocumented one). Not tracked by the garbage collector: no wire value holds a cycle."""


# --- actions -------------------------------------------------------------------------------------


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


# --- the view ------------------------------------------------------------------------------------


class Event(_Wire):
    """One public event of the current hand; a draw from the stock never names its card."""

    seat: Seat
    kind: ActionKind
    source: Annotated[Source | UnsetType, Meta(description="Draws only")] = UNSET
    card: Annotated[
        Card | UnsetType, Meta(description="Take, discard, knock, and a draw from the discard pile")
    ] = UNSET
    timed_out: Annotated[
        bool | UnsetType,
        Meta(description="true: the server played this move for the seat, its time having run out"),
    ] = UNSET


class Layoff(_Wire):
    """The defender's ``card`` laid off on one of the knocker's melds."""

    card: Card
    meld: Annotated[int, Meta(ge=0, description="Index into the knocker's melds")]


class HandResult(_Wire):
    """A finished hand: both hands revealed, melds, layoffs and the score worked out. Every pair
    is indexed by seat."""

    kind: ResultKind
    winner: Seat | None
    points: int
    knocker: Seat | None
    deadwood: list[int]
    hands: list[list[Card]]
    melds: list[list[MeldCards]]
    unmatched: list[list[Card]]
    layoffs: list[Layoff]
    breakdown: Annotated[str, Meta(examples=["25 + 8 - 5 = 28"])]


class HandView(_Wire):
    """One seat's view of the hand in play (a watcher's has ``seat`` null and no cards)."""

    seat: Seat | None
    starter: Seat
    dealer: Seat
    phase: Phase
    to_act: Seat | None
    cards: Annotated[
        list[Card], Meta(description="The seat's own cards, in best-meld order (none for a watcher)")
    ]
    hand: Annotated[
        list[Card],
        Meta(
            description="Deprecated: the v1 name of `cards` (the same list); removed in v2",
            extra_json_schema={"deprecated": True},
        ),
    ]
    melds: list[MeldCards]
    deadwood: int | None
    hand_counts: list[int]
    stock_count: int
    discard_pile: Annotated[list[Card], Meta(description="Bottom first: the last card is the top")]
    history: list[Event]
    legal_actions: list[Action]
    result: HandResult | None
    knock_limit: Annotated[
        int, Meta(ge=0, le=10, description="The most deadwood a knock may leave in this hand (0: gin only)")
    ]
    discard_deadwood: Annotated[
        dict[Card, int],
        Meta(description="When this seat must discard: each legal discard and the deadwood it leaves"),
    ]
    multiplier: Annotated[int, Meta(ge=1, description="What this hand's score is multiplied by (1: plain)")]
    deal_commitment: Annotated[
        Sha256Hex | None,
        Meta(
            description="SHA-256 (hex) of this hand's seed, fixed from the deal: the record reveals the "
            "seed once the match is over, and the seed re-derives the deal (docs/deals.md). "
            "Null for a match dealt by the legacy scheme"
        ),
    ]


class SeatPlayer(_Wire):
    seat: Seat
    name: str | None
    kind: Opponent


class Player(SeatPlayer):
    """A seat's player, and whether a socket of that seat is connected (always, the computer)."""

    connected: bool
    bot: Annotated[bool, Meta(description="The seat's player is a bot account (a program)")] = False


class RulesView(_Wire):
    """A rule preset's numbers (see docs/rules.md)."""

    name: RuleName
    label: Annotated[str, Meta(examples=["House rules"])]
    description: str
    target: int
    knock_limit: int
    gin_bonus: int
    undercut_bonus: int
    box_bonus: int
    game_bonus: int
    shutout_bonus: int
    starter_rule: StarterRule


class SeatTotal(_Wire):
    points: int
    box_bonus: int
    game_bonus: int
    total: int


class Outcome(_Wire):
    """How the match ended: the winning seat, why, and both seats' totals."""

    winner: Seat
    reason: Annotated[
        Literal["target", "resign", "timeout", "abandoned"],
        Meta(
            description="target: reached it; or the loser resigned, ran out of time, or left and was claimed"
        ),
    ]
    totals: list[SeatTotal]


class View(_Wire):
    """Everything one seat (or a watcher) may see of a match."""

    match_id: str
    status: Status
    seat: Annotated[Seat | None, Meta(description="The viewer's seat; null for a watcher")]
    version: Version
    players: list[Player]
    rules: RulesView
    hand_number: int
    scores: list[int]
    hands_won: list[int]
    hand: HandView
    last_result: HandResult | None
    outcome: Outcome | None
    status_line: Annotated[str, Meta(examples=["Your turn: discard a card, or knock"])]
    time_control: TimeControl
    clock: Annotated[MatchClock | None, Meta(description="null for an untimed match")]
    claim_at: Annotated[
        Timestamp | None,
        Meta(description="Your opponent is gone: from then you may claim the match (POST .../claim)"),
    ]
    claim_in_ms: Annotated[
        Annotated[int, Meta(ge=0)] | None, Meta(description="Milliseconds until claim_at (0: now)")
    ]
    rematch: Annotated[Rematch | None, Meta(description="Once the match is over")]
    rated: Annotated[bool, Meta(description="Counts for both players' ratings")] = False


# --- WebSocket messages --------------------------------------------------------------------------

ClientId = Annotated[
    str, Meta(min_length=1, max_length=64, pattern=STORABLE, description="The client's id for this action")
]


class Hello(_Wire, tag="hello", tag_field="type"):
    """Bind this socket to a seat (player token) or as a watcher (watch token)."""

    match: Annotated[str, Meta(min_length=1, max_length=64, pattern=STORABLE)]
    token: Annotated[str, Meta(min_length=1, max_length=128, pattern=STORABLE)]
    version: Annotated[Version | None, Meta(description="The last version the client saw (on reconnect)")] = (
        None
    )
    pace: Pace = UNSET


class Act(_Wire, tag="act", tag_field="type"):
    """Play ``action`` at ``version``; answered by ``ack`` (or ``error``) naming ``id``."""

    id: ClientId
    version: Version
    action: Action


class Ping(_Wire, tag="ping", tag_field="type"):
    pass


ClientMessage = Hello | Act | Ping


class State(_Wire, tag="state", tag_field="type"):
    """The seat's whole view, after every change (and in answer to hello)."""

    version: Version
    view: View


class Ack(_Wire, tag="ack", tag_field="type"):
    id: str
    version: Version


WsErrorCode = Literal[
    "bad_request",
    "unauthorized",
    "not_found",
    "not_your_turn",
    "illegal_action",
    "stale_version",
    "id_reused",
    "rate_limited",
    "too_large",
    "unavailable",
    "conflict",
    "too_many_matches",
]
"""The codes a WebSocket ``error`` carries (docs/protocol.md lists them; the last two on the
lobby socket only)."""

ErrorCode = Literal[
    "bad_request",
    "unauthorized",
    "forbidden",
    "not_for_bots",
    "not_found",
    "conflict",
    "match_not_over",
    "already_joined",
    "username_taken",
    "challenge_taken",
    "match_full",
    "match_over",
    "stale_version",
    "id_reused",
    "not_your_turn",
    "illegal_action",
    "too_many_matches",
    "too_large",
    "rate_limited",
    "unavailable",
    "internal",
]
"""Every error code, REST or WebSocket."""

_Limit = Annotated[str | UnsetType, Meta(description="rate_limited only: which limit was hit")]
_ResetIn = Annotated[float | UnsetType, Meta(description="rate_limited only: seconds until it resets")]


class Error(_Wire, tag="error", tag_field="type"):
    """The message named by ``id`` (null when unknown) was refused; nothing changed."""

    id: str | None
    code: WsErrorCode
    message: str
    limit: _Limit = UNSET
    reset_in: _ResetIn = UNSET


class Pong(_Wire, tag="pong", tag_field="type"):
    pass


ServerMessage = State | Ack | Error | Pong

# Quick pairing's lobby socket (/ws/lobby): its shapes live in their own module.
from .seeks import CancelSeek as CancelSeek  # noqa: E402
from .seeks import Paired as Paired  # noqa: E402
from .seeks import Seek as Seek  # noqa: E402
from .seeks import SeekCancelled as SeekCancelled  # noqa: E402
from .seeks import Seeking as Seeking  # noqa: E402

LobbyClientMessage = Seek | CancelSeek | Ping
LobbyServerMessage = Seeking | Paired | SeekCancelled | Error | Pong


# --- REST ----------------------------------------------------------------------------------------

Name = Annotated[
    str, Meta(min_length=1, max_length=40, pattern=STORABLE, description="Display name, 1 to 40 characters")
]


class CreatePlayer(_Wire):
    name: Name
    bot: Annotated[
        BotInfo | None, Meta(description="Declares the player a bot (a program); absent: a person")
    ] = None


class CreateMatch(_Wire):
    opponent: Opponent = "computer"
    difficulty: DifficultyName = "normal"
    rules: RuleName = "house"
    time_control: Annotated[TimeControl | None, Meta(description="Against a human only; absent: none")] = None
    rated: Annotated[
        bool, Meta(description="Counts for both players' Glicko-2 ratings (opponent human only)")
    ] = False
    public: Annotated[
        bool, Meta(description="Listed among the open challenges for anyone to accept (opponent human only)")
    ] = False


class JoinMatch(_Wire):
    invite: Annotated[str, Meta(min_length=1, max_length=64, pattern=STORABLE)]


class NewPlayer(_Wire):
    player_id: Annotated[str, Meta(examples=["p_1f0c9e2a7b3d4c5e"])]
    name: str
    token: Annotated[str, Meta(description="Shown once; send as Authorization: Bearer TOKEN")]
    bot: Annotated[BotInfo | None, Meta(description="null: a person")] = None


class Me(_Wire):
    player_id: str
    name: str
    bot: Annotated[BotInfo | None, Meta(description="null: a person")] = None


class MatchSummary(_Wire):
    match_id: Annotated[str, Meta(examples=["m_Xq3k9sPz0aBcDeFg"])]
    rules: RuleName
    opponent: Opponent
    difficulty: Annotated[DifficultyName | None, Meta(description="null against a human")]
    status: Status
    players: list[SeatPlayer]
    scores: list[int]
    hands_won: list[int]
    hand_number: int
    winner: Seat | None
    outcome: Outcome | None
    created_at: Timestamp
    updated_at: Timestamp
    version: Version
    time_control: TimeControl
    rematch: Rematch | None
    seat: Annotated[Seat | UnsetType, Meta(description="The caller's seat, when seated")] = UNSET
    rated: Annotated[bool, Meta(description="Counts for both players' ratings")] = False
    public: Annotated[bool, Meta(description="An open challenge (listed while it waits)")] = False


class Invite(_Wire):
    code: str
    url: str


class CreatedMatch(MatchSummary, kw_only=True):
    """The new match and how to connect."""

    seat: Annotated[Seat, Meta(description="The caller's seat")]
    ws_url: Annotated[str, Meta(examples=["ws://127.0.0.1:8080/ws"])]
    watch_token: Annotated[str, Meta(description="Lets anyone watch (public view only)")]
    invite: Annotated[
        Invite | None, Meta(description="Against a human: redeem with POST /api/matches/{id}/join")
    ]


class JoinedMatch(MatchSummary, kw_only=True):
    """The match joined and the caller's seat."""

    seat: Annotated[Seat, Meta(description="The caller's seat")]
    ws_url: str


class FinishedHand(HandResult):
    """A finished hand's result with its number and starter."""

    number: int
    starter: Seat


class MatchDetails(MatchSummary, kw_only=True):
    """A match summary and every finished hand's result, in order."""

    hands: list[FinishedHand]


class MatchList(_Wire):
    matches: list[MatchSummary]
    total: int
    limit: int
    offset: int


class RecordedAction(_Wire):
    seat: Seat
    action: Action
    timed_out: Annotated[
        bool | UnsetType,
        Meta(description="true: the server played this move for the seat, its time having run out"),
    ] = UNSET


class HandRecord(_Wire):
    """One deal of the record: both hands, the upcard, the stock (top first), every action. A
    hand left unfinished (a resignation, a forfeit) shows only the asking seat's own cards."""

    number: int
    starter: Seat
    seed: Annotated[
        str | None,
        Meta(
            description="The hand's seed, from which docs/deals.md re-derives this deal; null for a hand "
            "left unfinished (by a resignation)"
        ),
    ]
    hands: Annotated[
        list[list[Card] | None],
        Meta(description="Each seat's dealt hand; null: the other seat's, in a hand left unfinished"),
    ]
    upcard: Card
    stock: Annotated[list[Card] | None, Meta(description="Top first; null in a hand left unfinished")]
    actions: list[RecordedAction]
    result: HandResult | None
    deal_commitment: Annotated[
        Sha256Hex | None,
        Meta(
            description="What the view showed from the deal: SHA-256 (hex) of `seed`; null for a legacy deal"
        ),
    ]
    melds_by_step: Annotated[
        list[list[list[MeldCards]]],
        Meta(
            description="Each seat's melds, in the best arrangement the table shows, after the deal "
            "(index 0) and after each action (index i: after the first i actions): "
            "`melds_by_step[i][seat]` is that seat's melds"
        ),
    ] = []


class MatchRecord(_Wire):
    """The complete replay of a finished match."""

    match_id: str
    seat: Annotated[Seat, Meta(description="The caller's seat")]
    rules: RuleName
    seed: Annotated[
        str | None,
        Meta(
            description="Legacy deals only: the match's seed (each hand's seed derives from it); null for "
            "sha256 deals, whose match seed is never revealed"
        ),
    ]
    first_starter: Seat
    players: list[SeatPlayer]
    outcome: Outcome | None
    hands: list[HandRecord]
    deal: Annotated[
        DealName,
        Meta(
            description="How the hands were dealt: sha256 (verifiable, docs/deals.md) or legacy (before it)"
        ),
    ]


class Stats(_Wire):
    matches: int
    wins: int
    losses: int
    hands: int
    hands_won: int
    gins: int
    undercuts: int
    points: int


class RulePreset(RulesView):
    guide: str


class RulePresets(_Wire):
    rules: list[RulePreset]


class DifficultyInfo(_Wire):
    name: DifficultyName
    label: str
    description: str
    rating: Annotated[
        float | None,
        Meta(
            description="The level's fixed published rating, measured by a round robin (seeds/ratings.json)"
        ),
    ] = None


class Difficulties(_Wire):
    difficulties: list[DifficultyInfo]


class ErrorDetail(_Wire):
    code: ErrorCode
    message: str
    limit: _Limit = UNSET
    reset_in: _ResetIn = UNSET


class ErrorResponse(_Wire):
    error: ErrorDetail


class Health(_Wire):
    status: Literal["ok", "shutting_down", "database_unavailable"]


# --- Accounts (REST; docs/protocol.md "Accounts and sessions") ----------------------------------

Username = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=40,
        pattern=STORABLE,
        description="1 to 40 characters, the display-name rules; unique ignoring case and width",
    ),
]
Password = Annotated[str, Meta(min_length=8, max_length=256, description="8 to 256 characters")]
_SessionId = Annotated[str, Meta(examples=["s_0f1e2d3c4b5a6978"])]


class AddPassword(_Wire):
    username: Username
    password: Password


class SignIn(_Wire):
    username: Annotated[str, Meta(max_length=256)]
    password: Annotated[str, Meta(max_length=256)]


class SignedIn(_Wire):
    player_id: str
    name: str
    username: str | None
    token: Annotated[
        str, Meta(description="This device's own; shown once; send as Authorization: Bearer TOKEN")
    ]
    session_id: _SessionId


class Account(_Wire):
    player_id: str
    name: str
    username: Annotated[str | None, Meta(description="null while the player is anonymous")]
    passkeys: Annotated[int, Meta(description="How many passkeys the player has registered")]
    session_id: Annotated[str, Meta(description="The session of the token this request sent")]


class Session(_Wire):
    session_id: _SessionId
    device: Annotated[
        str, Meta(examples=["Chrome on Android"], description="From the User-Agent that opened it")
    ]
    created_at: Timestamp
    last_seen_at: Timestamp
    current: Annotated[bool, Meta(description="Whether it is the session of this request's token")]


class SessionList(_Wire):
    sessions: list[Session]


class RevokedSessions(_Wire):
    revoked: int


class PasskeyOptions(_Wire):
    challenge_id: Annotated[
        str, Meta(description="Send it back with the answer; usable once, expires in 5 minutes")
    ]
    options: Annotated[
        dict[str, Any],
        Meta(
            description="PublicKeyCredentialCreationOptions or ...RequestOptions, binary fields as base64url"
        ),
    ]


class PasskeyAnswer(_Wire):
    challenge_id: Annotated[str, Meta(min_length=1, max_length=64)]
    credential: Annotated[
        dict[str, Any], Meta(description="The PublicKeyCredential, as its toJSON() gives it")
    ]


class PasskeyInfo(_Wire):
    credential_id: str
    created_at: Timestamp


# --- ratings and the lobby -----------------------------------------------------------------------

PlayerId = Annotated[str, Meta(examples=["p_1f0c9e2a7b3d4c5e"])]


class Rating(_Wire):
    """A player's Glicko-2 rating (new players start at 1500, deviation 350)."""

    rating: Annotated[float, Meta(examples=[1662.3])]
    deviation: Annotated[float, Meta(description="Rating deviation: about 95% sure within twice it")]
    volatility: float
    games: Annotated[int, Meta(ge=0, description="Rated matches counted")]
    updated_at: Timestamp


class PlayerRating(_Wire):
    player_id: PlayerId
    name: str
    rating: Annotated[Rating | None, Meta(description="null until the player's first rated match")]


class RatingPoint(_Wire):
    """The rating after one rated match."""

    match_id: str
    rating: float
    deviation: float
    games: int
    rated_at: Timestamp


class RatingHistory(_Wire):
    """Newest first."""

    player_id: PlayerId
    history: list[RatingPoint]
    total: int
    limit: int
    offset: int


class LeaderboardEntry(_Wire):
    rank: Annotated[int, Meta(ge=1)]
    player_id: PlayerId
    name: str
    rating: float
    deviation: float
    games: int
    bot: Annotated[
        BotInfo | None, Meta(description="null: a person (a bot is rated here only by people's invites)")
    ] = None


class Leaderboard(_Wire):
    """Rated players with at least ``min_games`` rated matches, best first."""

    players: list[LeaderboardEntry]
    total: int
    limit: int
    offset: int
    min_games: int


class PlayerPage(_Wire):
    """Anyone's public page: record, rating, recent finished matches (no cards)."""

    player_id: PlayerId
    name: str
    rating: Rating | None
    stats: Stats
    recent: Annotated[list[MatchSummary], Meta(description="The last finished matches, newest first")]
    bot: Annotated[BotInfo | None, Meta(description="null: a person")] = None


class OpenChallenge(_Wire):
    """A public match waiting for anyone to accept it (POST /api/challenges/{match_id}/accept)."""

    match_id: str
    rules: RuleName
    rated: bool
    creator_id: PlayerId
    creator: Annotated[str, Meta(description="The creator's name")]
    rating: Annotated[float | None, Meta(description="The creator's rating; null if not rated yet")]
    deviation: float | None
    created_at: Timestamp


class ChallengeList(_Wire):
    challenges: list[OpenChallenge]
    total: int
    limit: int
    offset: int


class Lobby(_Wire):
    """Live counts, from the database (the same on every server)."""

    waiting: Annotated[int, Meta(description="Open challenges waiting for someone to accept")]
    playing: Annotated[
        int, Meta(description="Players seated in an active match that moved within the last 15 minutes")
    ]
    seeking: Annotated[int, Meta(description="Players seeking a quick pairing now (/ws/lobby)")] = 0
