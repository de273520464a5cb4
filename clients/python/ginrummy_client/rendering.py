"""The terminal client's rendering: the hand sorted into melds with its deadwood, the table,
what the opponent just did, each hand's result with both hands revealed and the score worked
out, and the match outcome with its bonuses. Pure: every function returns text.
"""

from __future__ import annotations

from .results import HandResult
from .views import Event, HandView, MatchView

__all__ = [
    "describe_event",
    "last_move",
    "opponent_moves",
    "render_hand",
    "render_outcome",
    "render_result",
    "render_table",
]


def render_hand(hand: HandView) -> str:
    """The hand as melds in brackets, then the deadwood cards; ``*`` marks a card just taken.

    >>> from ginrummy_client.models import HandView
    >>> h = HandView.from_wire({"seat": 0, "phase": "draw", "hand": ["3h", "4h", "5h", "As", "Kc"],
    ...     "melds": [["3h", "4h", "5h"]], "deadwood": 11})
    >>> render_hand(h)
    '[3h 4h 5h]  As Kc   deadwood 11'
    """
    taken = hand.just_taken
    mark = {taken: f"{taken}*"} if taken else {}
    parts = ["[" + " ".join(mark.get(c, c) for c in m) + "]" for m in hand.melds]
    loose = " ".join(mark.get(c, c) for c in hand.unmatched)
    text = " ".join(parts)
    if loose:
        text = f"{text}  {loose}" if text else loose
    return f"{text}   deadwood {hand.deadwood if hand.deadwood is not None else '?'}"


def _who(view: MatchView, seat: int | None) -> str:
    if seat is None:
        return "Nobody"
    return "You" if seat == view.seat else view.name(seat)


def _scores_verb(view: MatchView, seat: int | None) -> str:
    return "score" if seat == view.seat else "scores"


def describe_event(view: MatchView, e: Event) -> str:
    said = _did(e)
    return f"{said} (out of time)" if e.timed_out else said


def _did(e: Event) -> str:
    match e.kind:
        case "pass":
            return "passed the upcard"
        case "take_upcard":
            return f"took the upcard {e.card}"
        case "draw" if e.source == "stock":
            return "drew from the stock"
        case "draw":
            return f"took {e.card} from the discard pile"
        case "discard":
            return f"discarded {e.card}"
        case "knock":
            return f"knocked, discarding {e.card}"
        case _:
            return e.kind


def opponent_moves(view: MatchView) -> str | None:
    """What the other seat did since this seat last moved in this hand, as one sentence."""
    if view.hand is None or view.seat is None:
        return None
    history = view.hand.history
    start = 0
    for i, e in enumerate(history):
        if e.seat == view.seat:
            start = i + 1
    theirs = [e for e in history[start:] if e.seat != view.seat]
    if not theirs:
        return None
    return f"{view.name(1 - view.seat)} " + ", ".join(describe_event(view, e) for e in theirs) + "."


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def last_move(view: MatchView) -> str | None:
    """The latest event of the hand, for a watcher: ``"Ada discarded 7h."``."""
    if view.hand is None or not view.hand.history:
        return None
    e = view.hand.history[-1]
    return f"{view.name(e.seat)} {describe_event(view, e)}."


def render_table(view: MatchView, drawn: str | None = None) -> str:
    """The whole table as the seat sees it, ending with the line saying what to do now.
    ``drawn`` names the card this seat just drew from the stock (the view shows it only as
    one more card in the hand)."""
    lines = []
    rules = view.rules
    hand = view.hand
    head = f"=== Hand {view.hand_number} · {rules.name} rules · first to {rules.target}"
    if hand is not None:
        head += f" · {_who(view, hand.dealer)} {'deal' if hand.dealer == view.seat else 'deals'}"
    lines.append(head + " ===")
    score = "  ·  ".join(
        f"{view.name(s)}{' (you)' if s == view.seat else ''} {view.scores[s]}" for s in (0, 1)
    )
    lines.append(f"{score}      hands won {view.hands_won[0]}-{view.hands_won[1]}")
    if hand is not None:
        top = hand.top_discard or "(empty)"
        if view.seat is None:
            counts = f"{view.name(0)}: {_cards(hand.hand_counts[0])}   {view.name(1)}: {_cards(hand.hand_counts[1])}"
        else:
            counts = f"{view.name(1 - view.seat)}: {_cards(hand.opponent_count)}"
        lines.append(
            f"{counts}   Stock: {hand.stock_count}   Discard pile: {top} ({_cards(len(hand.discard_pile))})"
        )
        opp = view.opponent
        if opp is not None and opp.kind == "human" and opp.connected is False:
            lines.append(f"({opp.name} is disconnected)")
        moves = opponent_moves(view) if view.seat is not None else last_move(view)
        if moves:
            lines.append(moves)
        if view.seat is not None and hand.hand:
            if drawn:
                lines.append(f"You drew {drawn} from the stock.")
            lines.append(f"Your hand: {render_hand(hand)}")
            if hand.just_taken:
                lines.append(f"(* {hand.just_taken} was just taken from the discard pile: keep it this turn)")
            options = hand.knock_options if view.my_turn else {}
            if options:
                gin = [c for c, d in options.items() if d == 0]
                if gin:
                    lines.append("You can go gin: " + ", ".join(f"k {c}" for c in gin))
                else:
                    best = sorted(options.items(), key=lambda kv: (kv[1], kv[0]))[:4]
                    lines.append("You can knock: " + ", ".join(f"k {c} (leaves {d})" for c, d in best))
    if view.status_line:
        lines.append(view.status_line)
    return "\n".join(lines)


def render_result(view: MatchView, number: int, result: HandResult) -> str:
    """A finished hand: who scored and how, then both hands with melds, layoffs, deadwood."""
    lines = [f"--- Hand {number}: {result.summary} ---"]
    if result.kind != "dead" and result.winner is not None:
        lines.append(
            f"{_who(view, result.winner)} {_scores_verb(view, result.winner)} {result.points} points."
        )
    order = [result.knocker, 1 - result.knocker] if result.knocker is not None else [0, 1]
    for seat in order:
        melds = " ".join("[" + " ".join(m) + "]" for m in result.melds[seat])
        loose = " ".join(result.unmatched[seat])
        role = ""
        if result.knocker is not None:
            role = (
                " (gin)"
                if seat == result.knocker and result.kind == "gin"
                else (" (knocked)" if seat == result.knocker else " (defended)")
            )
        text = f"  {_who(view, seat)}{role}: {melds}"
        if loose:
            text += f"  | {loose}"
        text += f"   deadwood {result.deadwood[seat]}"
        lines.append(text)
        if result.knocker is not None and seat != result.knocker and result.layoffs:
            knocker_melds = result.melds[result.knocker]
            laid = ", ".join(
                f"{lo.card} on [{' '.join(knocker_melds[lo.meld])}]"
                if 0 <= lo.meld < len(knocker_melds)
                else lo.card
                for lo in result.layoffs
            )
            lines.append(f"    laid off: {laid}")
    return "\n".join(lines)


def render_outcome(view: MatchView) -> str:
    """The end of the match: who won, why, and the scoreboard with bonuses."""
    outcome = view.outcome
    if outcome is None:
        return f"=== Match over === {view.status_line}"
    if view.seat is None:
        head = f"{view.name(outcome.winner)} wins the match"
    else:
        head = (
            "You win the match!"
            if outcome.winner == view.seat
            else f"{view.name(outcome.winner)} wins the match."
        )
    loser = _who(view, 1 - outcome.winner)
    why = {"resign": "resigned", "timeout": "ran out of time", "abandoned": "left the match"}
    if outcome.reason in why:  # a forfeit says why; "target" needs no word
        head += f" ({loser} {why[outcome.reason]})"
    lines = [f"=== {head} ===", f"  {'':16} {'points':>7} {'box':>5} {'game':>5} {'total':>6}"]
    for seat, t in enumerate(outcome.totals):
        label = _who(view, seat)[:16]
        lines.append(f"  {label:16} {t.points:>7} {t.box_bonus:>5} {t.game_bonus:>5} {t.total:>6}")
    return "\n".join(lines)
