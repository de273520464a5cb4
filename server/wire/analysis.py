"""The wire shapes of explained play: a match's analysis (``GET /api/matches/{id}/analysis``)
and a hint (``GET /api/matches/{id}/hint``). Kept apart from :mod:`.messages`; nothing here
does I/O or holds game logic.

Every value is in **expected points of the hand for the player's seat** (positive: the player
scores; negative: the opponent does; the box bonus counted where the rules have one), as Hard
reckons it from what that seat could see at that moment (docs/protocol.md, "Explained play").
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import Meta, Struct

from .actions import Action

Seat = Annotated[int, Meta(ge=0, le=1)]
Points = Annotated[float, Meta(description="expected points of the hand for the player's seat")]
Reason = Literal[
    "gin", "knock", "wait", "melds", "knock_next", "no_use", "least_deadwood", "safer", "keeps_chances"
]
DecisionPhase = Literal["upcard", "draw", "discard"]


class _Wire(Struct, forbid_unknown_fields=True, gc=False):
    pass


class ValuedAction(_Wire):
    """One legal action of a decision and what it is worth."""

    action: Action
    value: Points


class AnalysedDecision(_Wire):
    """One decision of the player: what it played, what Hard would have played and why, and every
    legal action's value (Hard's choice first, then the most valuable). ``loss``: Hard's choice's value less the played
    action's (0 when they agree); ``mistake`` when it is at least ``AnalysisBudget.mistake``."""

    step: Annotated[int, Meta(ge=0, description="index of the played action among the hand's actions")]
    phase: DecisionPhase
    played: Action
    best: Action
    reason: Reason
    explanation: str
    loss: Annotated[float, Meta(ge=0)]
    mistake: bool
    choices: list[ValuedAction]


class HandAnalysis(_Wire):
    """One finished hand: its luck (``start_value``, what the deal was worth to the player at its
    first decision), the value it lost (``lost``), the value the opponent lost the same way from
    its own view (``opponent_lost``, which comes back to the player), what it scored
    (``points``), its mistakes (``mistakes``: the steps of the mistaken decisions, the biggest
    first), and the opponent's (``opponent_mistakes``: those decisions of the opponent, the
    biggest first; a finished hand's record shows its cards)."""

    number: Annotated[int, Meta(ge=1)]
    start_value: Points
    lost: Annotated[float, Meta(ge=0)]
    opponent_lost: Annotated[float, Meta(ge=0)]
    points: Annotated[
        int,
        Meta(
            description="what the hand scored for this seat: its points when it won them, less them when "
            "the opponent did, 0 for a dead hand (the hands' points add up to the match's points)"
        ),
    ]
    mistakes: list[int]
    decisions: list[AnalysedDecision]
    opponent_mistakes: list[AnalysedDecision]


class AnalysisBudget(_Wire):
    """What the analysis cost and how its values are measured."""

    worlds: Annotated[int, Meta(ge=1, description="sampled worlds (hidden cards) per decision")]
    recheck_worlds: Annotated[
        int,
        Meta(
            ge=1,
            description="worlds on which a decision that differs from Hard's choice has both values measured again",
        ),
    ]
    mistake: Annotated[float, Meta(description="the loss from which a decision is a mistake")]
    value: Literal["expected_points"] = "expected_points"


class MatchAnalysis(_Wire):
    """The player's play in the finished hands of a match (in a match still in play, those
    before the current one). ``luck``: the sum of the hands' start values (how good the deals
    were); ``lost``: the sum of the values lost (how well they were played); ``opponent_lost``:
    the opponent's, the same way; ``points``: the points the player actually won less the
    opponent's, over those hands (over many hands, near ``luck - lost + opponent_lost``);
    ``summary``: the luck-versus-skill line in words."""

    match_id: str
    seat: Seat
    status: Literal["waiting", "active", "finished"]
    hands: list[HandAnalysis]
    luck: float
    lost: float
    opponent_lost: float
    points: int
    summary: str
    budget: AnalysisBudget


class Hint(_Wire):
    """What Hard would play now, for the player to act in a match against the computer (never
    a rated one), from the player's own view: ``best`` and why, and every legal action's
    value. ``version``: the match version it was computed at."""

    match_id: str
    version: int
    phase: DecisionPhase
    best: Action
    reason: Reason
    explanation: str
    choices: list[ValuedAction]


__all__ = ["AnalysedDecision", "AnalysisBudget", "HandAnalysis", "Hint", "MatchAnalysis", "ValuedAction"]
