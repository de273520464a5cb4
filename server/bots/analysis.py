"""Explained play: Hard's evaluation of every decision a seat made, from that seat's view alone.

For each decision of one seat (take the upcard or pass, draw from the stock or the discard
pile, which card to discard, whether to knock), :func:`evaluate` values *every* legal action in
**expected points of the hand for that seat** (positive: it scores; negative: the opponent
does; the box bonus counted where the rules have one), and names the one Hard would play:

- Draw decisions (upcard and draw phases): each option is played out to the end of the hand
  (:func:`.rollout.play_hand`, both seats greedy) on the same ``worlds`` sampled guesses at the hidden
  cards (:meth:`.knowledge.Knowledge.sample`), so every option meets the same luck. Hard's
  choice is its own draw rule (:meth:`.hard.HardBot.take_discard`).
- Discard decisions: Hard's choice is its evaluation in the style that simulates every discard
  (``discard_style=0``, its default before issue 17's fourth round; the default now discards by
  MARJJ's hand-strength rule and simulates only a knock): :meth:`.hard.HardBot.discard_values`
  with ``every=True`` (every legal discard and knock, on all the samples), then
  :meth:`.hard.HardBot.knock_at_once` or :meth:`.hard.HardBot.pick`. Those values are steadied
  by the quick score (not points), and the samples that made Hard prefer an action would
  inflate its value (the largest of noisy estimates); so the *values* are that evaluation again
  with no blend, on samples drawn from a second seed: the playouts' means, in points. The draw
  rule is that style's too.
- Every value (draws' too) is played out on guesses as strong as real hands: half the
  improving draws Hard's own guesses replay (:data:`VALUES_IMPROVE`).
- Where the played action is not Hard's choice, those two are valued again on :data:`RECHECK`
  times the worlds, so that a loss (and a mistake) is less often the worlds' luck.

Values are rounded to 0.01, a loss and a start value to 0.1. A decision's **loss** is what Hard's
choice is worth less what the played action is worth (never below 0): the points the player
gave away by Hard's reckoning, with greedy play after it. A hand's **start value** is the
value of Hard's choice at the seat's first decision, its luck (how good the deal was for it).
What the opponent loses comes back to the seat: over many hands the start values, less the
seat's losses, plus the opponent's, came within noise of the points scored (docs/protocol.md).

Everything is computed from a :class:`~server.rules.SeatView` rebuilt by replaying the hand up
to the decision, and the samples are drawn from a generator seeded from that view alone
(:func:`.base.view_key`): two deals that differ only in cards the seat could not see give the
same analysis, value for value (a test checks it). The CPU is bounded by ``worlds``: at most
``worlds`` playouts per legal action of a decision (11 discards, 2 draw options), twice
for a discard (the choice, then the values), and ``RECHECK * worlds`` for the two actions of a
decision unlike Hard's.

Pure: no I/O, no clock, no global random; it never receives a hand's hidden cards except to
replay the actions, and never reads them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from server.rules import (
    Action,
    Discard,
    Draw,
    HandState,
    Knock,
    Pass,
    Phase,
    Rules,
    SeatView,
    Source,
    TakeUpcard,
)
from server.rules.cards import DECK, VALUES, Card, to_mask
from server.rules.match import HandLog, MatchState
from server.rules.melds import min_deadwood

from .base import own_mask, top_of_pile, view_key
from .hard import HardBot, feed_chance, with_box
from .knowledge import Knowledge
from .rollout import DISCARD, DRAW, UPCARD, PlayoutSettings, play_hand
from .sim import Memo

WORLDS = 16
"""Sampled worlds per decision by default (Hard plays with 40)."""
MISTAKE = 2.0
"""A decision that loses at least this many expected points is a mistake."""
RECHECK = 4
"""A decision that differs from Hard's choice has both actions valued again on this many times
the worlds: at 16 worlds, a third (Easy's) to a half (Normal's) of the decisions flagged as
mistakes were none when valued on 256 (docs/protocol.md)."""
VALUES_IMPROVE = 50
"""The values' guesses at the opponent's hand replay half the draws Hard's own do (its
``improve``): Hard's guesses held 5-6 points less deadwood than the true hand mid-hand, which
made every knock look riskier than it was; at half, the guesses' mean deadwood matched the
true hand's against Easy, Normal and Hard (docs/protocol.md)."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal action and what it is worth (expected points of the hand for the seat)."""

    action: Action
    value: float


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of the seat: what it played, what Hard would have, every option's value."""

    step: int
    """The index of the played action among the hand's actions (both seats), from 0."""
    phase: Phase
    played: Action
    best: Action
    """Hard's choice."""
    reason: str
    """Why Hard chooses ``best``, as a code (:data:`REASONS`)."""
    choices: tuple[Choice, ...]
    """Every legal action: Hard's choice first, then the most valuable."""
    loss: float

    @property
    def mistake(self) -> bool:
        return self.loss >= MISTAKE

    def value_of(self, action: Action) -> float:
        return next(c.value for c in self.choices if c.action == action)


REASONS = (
    "gin",
    "knock",
    "wait",
    "melds",
    "knock_next",
    "no_use",
    "least_deadwood",
    "safer",
    "keeps_chances",
)
"""Why Hard chooses an action: gin; knock now; play on rather than knock (an undercut is likely
or gin is near); take the card (it makes or extends a meld; it lets the hand knock); leave it
(it does not help); discard the card that leaves the least deadwood; discard a card the
opponent is less likely to use; discard a card that keeps more ways to make melds."""


@dataclass(frozen=True, slots=True)
class HandAnalysis:
    number: int
    start_value: float
    """What Hard's choice was worth at the seat's first decision of the hand: its luck."""
    decisions: tuple[Decision, ...]

    @property
    def lost(self) -> float:
        return sum(d.loss for d in self.decisions)

    @property
    def mistakes(self) -> tuple[Decision, ...]:
        """The hand's mistakes, the biggest first."""
        return tuple(sorted((d for d in self.decisions if d.mistake), key=lambda d: (-d.loss, d.step)))


@dataclass(frozen=True, slots=True)
class MatchAnalysis:
    seat: int
    hands: tuple[HandAnalysis, ...]
    hand_points: tuple[int, ...]
    """Each hand's points for the seat (:meth:`~server.rules.HandResult.points_for`), in the
    order of ``hands``."""
    opponent: tuple[HandAnalysis, ...]
    """The other seat's play in the same hands, from its own view: what it lost comes back to
    this seat, so over many hands ``luck - lost + opponent_lost`` comes near ``points``."""

    @property
    def points(self) -> int:
        """The points the seat actually won less those the opponent won, over these hands."""
        return sum(self.hand_points)

    @property
    def luck(self) -> float:
        """The deals: the sum of the hands' start values."""
        return sum(h.start_value for h in self.hands)

    @property
    def lost(self) -> float:
        """The play: the sum of the value lost to decisions that differ from Hard's."""
        return sum(h.lost for h in self.hands)

    @property
    def opponent_lost(self) -> float:
        """The opponent's play: the value it lost, the same way."""
        return sum(h.lost for h in self.opponent)


# --- replaying a hand to the seat's decisions -----------------------------------------------------


def hand_state(rules: Rules, log: HandLog, scores: tuple[int, int]) -> HandState:
    """The hand of ``log`` as dealt, before any action."""
    state = HandState(
        rules,
        log.starter,
        (to_mask(log.hands[0]), to_mask(log.hands[1])),
        log.upcard.index,
        [c.index for c in log.stock],
    )
    state.scores = scores
    return state


def seat_decisions(
    rules: Rules, log: HandLog, seat: int, scores: tuple[int, int] = (0, 0)
) -> Iterator[tuple[int, SeatView, Action]]:
    """Each decision of ``seat`` in the hand: (step, the seat's view just before it, the action
    played). Replays ``log.actions`` (which may stop before the hand's end)."""
    state = hand_state(rules, log, scores)
    for step, (s, action) in enumerate(log.actions):
        if s == seat:
            yield step, state.view(seat), action
        state.apply(action, s)


def match_scores(match: MatchState) -> list[tuple[int, int]]:
    """The match score when each hand of ``match.log`` was dealt."""
    out = []
    scores = [0, 0]
    for i in range(len(match.log)):
        out.append((scores[0], scores[1]))
        if i < len(match.results):
            r = match.results[i]
            if r.winner is not None:
                scores[r.winner] += r.points
    return out


# --- evaluating one decision --------------------------------------------------------------------


def _bot(worlds: int, blend: int, salt: str, view: SeatView, improve: int = 100) -> HardBot:
    # The discard style that simulates each discard (the default before issue 17's fourth
    # round), with its knock valued as it was.
    bot = HardBot(
        "analysis",
        worlds=worlds,
        discard_style=0,
        knock_bias=0,
        strength_weight=100,
        blend=blend,
        opp_mix=2,
        improve=improve,
    )
    bot.rng.seed(f"{salt}:{view_key(view)}")
    return bot


def evaluate(
    view: SeatView, played: Action, *, worlds: int = WORLDS, step: int = 0, recheck: bool = True
) -> Decision:
    """Hard's evaluation of the decision in ``view`` (the seat to act), and ``played`` against it.
    ``recheck``: when ``played`` is not Hard's choice, value both again on :data:`RECHECK` times
    the worlds (a hint, which plays nothing, need not)."""
    chooser = _bot(worlds, 100, "analysis", view)
    best: Action
    if view.phase is Phase.DISCARD:
        best = chooser.knock_at_once(view) or chooser.pick(*chooser.discard_values(view, every=True))
        reason = _discard_reason(view, best)
    else:
        best, reason = _draw_choice(chooser, view)
    values = action_values(view, worlds)
    if recheck and played != best and played in values:
        values |= action_values(view, worlds * RECHECK, (best, played))
    # Hard's choice first (a draw's is Hard's rule, which the noisy playouts may rank lower),
    # then the most valuable.
    choices = tuple(
        sorted(
            (Choice(a, round(v, 2)) for a, v in values.items()), key=lambda c: (c.action != best, -c.value)
        )
    )
    by_action = {c.action: c.value for c in choices}
    loss = max(0.0, by_action[best] - by_action.get(played, by_action[best]))
    return Decision(step, view.phase, played, best, reason, choices, round(loss, 1))


def action_values(
    view: SeatView, worlds: int, only: Sequence[Action] | None = None, *, salt: str = "analysis-values"
) -> dict[Action, float]:
    """Every legal action's value in points (``only``: these), on ``worlds`` guesses drawn with
    a generator seeded from ``salt`` and the view (the same guesses for every action)."""
    bot = _bot(worlds, 0, salt, view, improve=VALUES_IMPROVE)
    if view.phase is Phase.DISCARD:
        return _discard_points(bot, view, only)
    options = (
        [TakeUpcard(), Pass()]
        if view.phase is Phase.UPCARD
        else [a for a in view.legal_actions if isinstance(a, Draw)]
    )
    return _draw_points(bot, view, options if only is None else [a for a in options if a in only])


def _discard_points(bot: HardBot, view: SeatView, only: Sequence[Action] | None) -> dict[Action, float]:
    """Every discard's and knock's value in points: the mean of its playouts alone (``bot`` has
    no blend of the quick score, which steadies Hard's choice but is not points)."""
    keys = None if only is None else {_key(a) for a in only}
    raw, _, _ = bot.discard_values(view, every=True, only=keys)
    return {(Knock(DECK[c]) if kind == "knock" else Discard(DECK[c])): v for (kind, c), v in raw.items()}


def _key(action: Action) -> tuple[str, int]:
    assert isinstance(action, Discard | Knock)
    return ("knock" if isinstance(action, Knock) else "discard", action.card.index)


def _discard_reason(view: SeatView, best: Action) -> str:
    options = {c.index: dw for c, dw in view.discard_deadwood}
    assert isinstance(best, Discard | Knock)
    card = best.card.index
    if isinstance(best, Knock):
        return "gin" if options[card] == 0 else "knock"
    least = min(options.values())
    if least <= view.knock_limit:
        return "wait"
    tied = [c for c, dw in options.items() if dw == options[card] and c != card]
    if options[card] == least and not tied:
        return "least_deadwood"
    # Between cards that leave as much deadwood (or when Hard keeps more), the quick score's
    # two parts tell why: the chance of feeding the opponent, or the draws that would help.
    k = Knowledge.from_view(view)
    probs = k.opp_probabilities() | {c: 1.0 for c in range(52) if k.opp_known >> c & 1}
    others = tied or [c for c in options if c != card]
    if others and feed_chance(card, probs) < min(feed_chance(c, probs) for c in others):
        return "safer"
    return "keeps_chances"


def _draw_choice(bot: HardBot, view: SeatView) -> tuple[Action, str]:
    """Hard's draw (``bot``'s rule) and why."""
    top = top_of_pile(view)
    hand = own_mask(view)
    if view.phase is Phase.UPCARD:
        take = bot.take_upcard(view)
        best: Action = TakeUpcard() if take else Pass()
    else:
        take = Draw(Source.DISCARD) in view.legal_actions and bot.take_discard(view)
        best = Draw(Source.DISCARD) if take else Draw(Source.STOCK)
    melds = min_deadwood(hand | 1 << top) < min_deadwood(hand) + VALUES[top]
    return best, ("melds" if melds else "knock_next") if take else "no_use"


def _draw_points(valuer: HardBot, view: SeatView, options: Sequence[Action]) -> dict[Action, float]:
    """Each draw option's value: played out greedily on ``valuer``'s worlds."""
    me = view.seat
    assert me is not None
    top = top_of_pile(view)
    hand = own_mask(view)
    k = Knowledge.from_view(view)
    worlds = valuer.sample_worlds(view, k, valuer.worlds)
    worth = valuer.worth(view)
    memo = Memo()
    limit = view.knock_limit
    settings = PlayoutSettings(view.rules, limit, view.multiplier, starter=view.starter)
    passes = sum(1 for e in view.history if e.kind == "pass")
    turns = sum(1 for e in view.history if e.kind == "discard")
    values: dict[Action, float] = {}
    for action in options:
        total = 0.0
        for opp_hand, stock in worlds:
            hands = [hand, opp_hand] if me == 0 else [opp_hand, hand]
            pile = list(k.pile)
            taken, to_act, phase, stock_only, p = -1, me, DRAW, False, passes
            if isinstance(action, TakeUpcard) or action == Draw(Source.DISCARD):
                hands[me] |= 1 << pile.pop()
                taken, phase = top, DISCARD
            elif isinstance(action, Pass):
                p += 1
                if p == 1:
                    to_act, phase = 1 - me, UPCARD
                else:
                    to_act, stock_only = view.starter, True
            else:
                stock_only = True
            knocker, points = play_hand(
                hands,
                stock[::-1],
                pile,
                to_act,
                phase,
                taken,
                (limit, limit),
                settings,
                memo,
                passes=p,
                stock_only=stock_only,
                turns=turns,
            )
            total += worth(with_box(points if knocker == me else -points, view.rules.box_bonus))
        values[action] = total / len(worlds)
    return values


# --- a hand, a match -----------------------------------------------------------------------------


def analyse_hand(
    rules: Rules, log: HandLog, seat: int, scores: tuple[int, int] = (0, 0), *, worlds: int = WORLDS
) -> HandAnalysis:
    decisions = tuple(
        evaluate(view, action, worlds=worlds, step=step)
        for step, view, action in seat_decisions(rules, log, seat, scores)
    )
    start = decisions[0].value_of(decisions[0].best) if decisions else 0.0
    return HandAnalysis(log.number, round(start, 1), decisions)


def analyse_match(
    match: MatchState, seat: int, hands: Sequence[int] | None = None, *, worlds: int = WORLDS
) -> MatchAnalysis:
    """The analysis of ``seat``'s play in the finished hands of ``match`` (``hands``: only
    those numbers), and of the opponent's in the same hands. A hand still in play is never
    analysed (the opponent's view holds its hand, which a finished hand's record shows)."""
    scores = match_scores(match)
    done = len(match.results)
    out: tuple[list[HandAnalysis], list[HandAnalysis]] = ([], [])
    points: list[int] = []
    for i, log in enumerate(match.log[:done]):
        if hands is not None and log.number not in hands:
            continue
        for s, found in enumerate(out):
            found.append(analyse_hand(match.rules, log, s, scores[i], worlds=worlds))
        points.append(match.results[i].points_for(seat))
    return MatchAnalysis(seat, tuple(out[seat]), tuple(points), tuple(out[1 - seat]))


def hint(view: SeatView, *, worlds: int = WORLDS) -> Decision:
    """What Hard would play now in ``view`` (the seat to act), and why."""
    if view.seat is None or view.to_act != view.seat or not view.legal_actions:
        raise ValueError("a hint is for the seat to act")
    first = view.legal_actions[0]
    return evaluate(view, first, worlds=worlds, recheck=False)


def card_of(action: Action) -> Card | None:
    return action.card if isinstance(action, Discard | Knock) else None


__all__ = [
    "MISTAKE",
    "REASONS",
    "RECHECK",
    "WORLDS",
    "Choice",
    "Decision",
    "HandAnalysis",
    "MatchAnalysis",
    "action_values",
    "analyse_hand",
    "analyse_match",
    "evaluate",
    "hint",
    "seat_decisions",
]
