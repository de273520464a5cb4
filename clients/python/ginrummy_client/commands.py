"""The terminal client's commands: what a player may type (``HELP``), reading one typed
command against the current view, and why an action cannot be played now, in the player's
words. Pure: nothing here does I/O (:mod:`.terminal` reads and writes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .actions import DRAW_DISCARD, DRAW_STOCK, PASS, TAKE_UPCARD, Action, discard, knock
from .cards import normalize
from .views import MatchView

__all__ = ["HELP", "Command", "CommandError", "parse_command"]

HELP = """\
Commands:
  d s      draw from the stock              d d      draw from the discard pile
  t        take the upcard                  p        pass the upcard
  x 7h     discard 7h                       k 7h     discard 7h and knock (gin if no deadwood is left)
  k        knock with the card that leaves the least deadwood
  r        show the table again             h        this help
  resign   resign the match                 q        quit (the match waits: come back with --match)
Cards are rank then suit: A 2 3 4 5 6 7 8 9 T J Q K and c d h s (7h, Td, As; 10h works too)."""


class CommandError(ValueError):
    """What the player typed cannot be played now; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Command:
    kind: Literal["action", "help", "quit", "redraw", "resign"]
    action: Action | None = None


def parse_command(text: str, view: MatchView) -> Command:
    """Read one typed command against the current view; raises CommandError explaining a
    mistake (malformed, or not legal now) so that nothing wrong is ever sent.

    >>> from ginrummy_client.models import MatchView
    >>> v = MatchView.from_wire({"match_id": "m_1", "seat": 0, "hand": {"seat": 0, "phase": "draw",
    ...     "to_act": 0, "hand": ["7h"], "discard_pile": ["Kd"],
    ...     "legal_actions": [{"kind": "draw", "source": "stock"}, {"kind": "draw", "source": "discard"}]}})
    >>> parse_command("d s", v).action
    DRAW_STOCK
    >>> parse_command("x 7h", v)
    Traceback (most recent call last):
    ...
    ginrummy_client.commands.CommandError: Draw first: d s (stock) or d d (discard pile: Kd).
    """
    words = text.strip().lower().split()
    if not words:
        raise CommandError("Type a command (h for help).")
    head, args = words[0], words[1:]
    if head in ("h", "help", "?"):
        return Command("help")
    if head in ("q", "quit", "exit"):
        return Command("quit")
    if head in ("r", "redraw", "table"):
        return Command("redraw")
    if head == "resign":
        return Command("resign")
    action: Action
    if head in ("ds", "dd"):
        head, args = "d", [head[1]]
    if head in ("d", "draw"):
        if not args or args[0] not in ("s", "stock", "d", "discard", "pile"):
            raise CommandError("Draw from where? d s (the stock) or d d (the discard pile).")
        action = DRAW_STOCK if args[0] in ("s", "stock") else DRAW_DISCARD
    elif head in ("t", "take"):
        action = TAKE_UPCARD
    elif head in ("p", "pass"):
        action = PASS
    elif head in ("x", "discard"):
        if len(args) != 1:
            raise CommandError("Discard which card? For example: x 7h")
        action = discard(_card(args[0]))
    elif head in ("k", "knock", "g", "gin"):
        if len(args) > 1:
            raise CommandError("Knock with one card, for example: k 7h")
        if args:
            action = knock(_card(args[0]))
        else:
            options = view.hand.knock_options if view.hand else {}
            if not options:
                raise CommandError(_why_not(knock("As"), view, any_knock=True))
            best = min(options, key=lambda c: (options[c], c))
            action = knock(best)
    else:
        raise CommandError(f"Unknown command {text.strip()!r} (h for help).")
    if action not in view.legal_actions:
        raise CommandError(_why_not(action, view))
    return Command("action", action)


def _card(word: str) -> str:
    try:
        return normalize(word)
    except ValueError as exc:
        raise CommandError(str(exc)[0].upper() + str(exc)[1:] + ".") from None


def _why_not(action: Action, view: MatchView, *, any_knock: bool = False) -> str:
    """Why ``action`` is not among the legal actions, in the player's words."""
    hand = view.hand
    if view.is_over:
        return "The match is over."
    if hand is None or view.seat is None:
        return "You are watching: there is nothing to play."
    if not view.my_turn:
        return f"Not your turn. {view.status_line}".strip()
    top = hand.top_discard or "?"
    if hand.phase == "upcard":
        return f"The upcard {top} is on offer: t to take it, p to pass."
    if hand.phase == "draw":
        if DRAW_DISCARD not in view.legal_actions:
            return "Both players passed the upcard: draw from the stock (d s)."
        return f"Draw first: d s (stock) or d d (discard pile: {top})."
    if action.kind in ("discard", "knock"):
        card = action.card
        if any_knock:
            lowest = min(hand.discard_deadwood.values(), default=0)
            return f"You cannot knock yet: the best discard leaves {lowest} deadwood, {_limit_words(hand.knock_limit)}."
        if card not in hand.hand:
            return f"You don't hold {card}."
        if card == hand.just_taken:
            return f"You just took {card} from the discard pile: discard another card this turn."
        if action.kind == "knock":
            left = hand.discard_deadwood.get(card or "")
            return f"Knocking with {card} would leave {left} deadwood; {_limit_words(hand.knock_limit)}."
    return "Discard a card (x 7h) or knock (k 7h)."


def _limit_words(limit: int) -> str:
    """This hand's knock limit in words (``0``: gin only, as under an ace upcard in oklahoma).

    >>> _limit_words(10), _limit_words(0)
    ('the limit this hand is 10', 'this hand is gin only')
    """
    return "this hand is gin only" if limit == 0 else f"the limit this hand is {limit}"
