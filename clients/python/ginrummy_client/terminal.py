"""The terminal client: play a match in a text console, against the computer or a friend.

It shows what the browser shows: the hand sorted into melds with its deadwood, the table
(top of the discard pile, stock count, opponent's card count, scores), what the opponent just
did, the line saying what to do now, each hand's result with both hands revealed and the score
worked out ("Undercut: 25 + 8 - 5 = 28"), and the match outcome with its bonuses.

Commands (``h`` prints them)::

    d s   draw from the stock            d d   draw from the discard pile
    t     take the upcard                p     pass the upcard
    x 7h  discard 7h                     k 7h  discard 7h and knock (gin when nothing is left)

Input and output are two callables (:data:`Reader`, :data:`Writer`), so a test or another
program drives it exactly as a person would; :func:`stdin_reader` gives the console's.
The rendering functions are pure; only :class:`TerminalUI` talks to the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from .cards import normalize
from .connection import MatchConnection
from .errors import ServerError, StaleVersion
from .models import (
    DRAW_DISCARD,
    DRAW_STOCK,
    PASS,
    TAKE_UPCARD,
    Action,
    Event,
    HandResult,
    HandView,
    MatchView,
    discard,
    knock,
)

__all__ = [
    "HELP",
    "Command",
    "CommandError",
    "Reader",
    "TerminalUI",
    "Writer",
    "parse_command",
    "render_hand",
    "render_outcome",
    "render_result",
    "render_table",
    "stdin_reader",
]

Reader = Callable[[str], Awaitable[str | None]]
"""Shows a prompt and returns the line typed (None at the end of input)."""
Writer = Callable[[str], None]
"""Shows some text (one or more lines)."""

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


# --- commands ------------------------------------------------------------------------------------


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
    ginrummy_client.terminal.CommandError: Draw first: d s (stock) or d d (discard pile: Kd).
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


# --- rendering ----------------------------------------------------------------------------------


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
    if outcome.reason == "resign":
        head += f" ({_who(view, 1 - outcome.winner)} resigned)"
    lines = [f"=== {head} ===", f"  {'':16} {'points':>7} {'box':>5} {'game':>5} {'total':>6}"]
    for seat, t in enumerate(outcome.totals):
        label = _who(view, seat)[:16]
        lines.append(f"  {label:16} {t.points:>7} {t.box_bonus:>5} {t.game_bonus:>5} {t.total:>6}")
    return "\n".join(lines)


# --- the loop ------------------------------------------------------------------------------------


class TerminalUI:
    """Drives one seat of a match from typed commands; returns the final view (None on quit).

    ``resign`` is an optional coroutine function that resigns the match (the REST call).
    ``waiting_note`` is shown while the match waits for the second player (the invite).
    """

    def __init__(
        self,
        conn: MatchConnection,
        read: Reader,
        write: Writer,
        *,
        resign: Callable[[], Awaitable[object]] | None = None,
        waiting_note: str | None = None,
        prompt: str = "> ",
    ) -> None:
        self.conn = conn
        self.read = read
        self.write = write
        self.resign = resign
        self.waiting_note = waiting_note
        self.prompt = prompt
        self._announced: set[int] = set()
        self._waiting_shown = False
        self._last_line: str | None = None
        # (hand number, cards) last seen in this seat's hand: what a stock draw added.
        self._known: tuple[int, frozenset[str]] = (0, frozenset())
        conn.on_status = self._on_status

    def _on_status(self, status: str) -> None:
        if status == "reconnecting":
            self.write("(connection lost: reconnecting...)")
        elif status == "connected" and self.conn.reconnects:
            self.write("(reconnected)")

    def _announce(self, view: MatchView) -> None:
        found: list[tuple[int, HandResult]] = []
        if view.last_result is not None:
            found.append((view.hand_number - 1, view.last_result))
        if view.hand is not None and view.hand.result is not None:
            found.append((view.hand_number, view.hand.result))
        for number, result in found:
            if number not in self._announced:
                self._announced.add(number)
                self.write(render_result(view, number, result))
                self.write("Scores: " + "  ·  ".join(f"{_who(view, s)} {view.scores[s]}" for s in (0, 1)))

    async def run(self) -> MatchView | None:
        async for view in self.conn:
            self._announce(view)
            if view.is_over:
                self.write(render_outcome(view))
                return view
            if self.conn.queued_states:
                continue  # a newer state has already arrived: draw that one
            if view.status == "waiting":
                if not self._waiting_shown:
                    self._waiting_shown = True
                    self.write("Waiting for your opponent to join.")
                    if self.waiting_note:
                        self.write(self.waiting_note)
                continue
            if view.seat is None:  # watching: every change is news
                self.write(render_table(view))
                continue
            if not view.my_turn:
                # The other seat is moving: one line while it does. The full table, with what
                # it did, comes back when it is this seat's turn.
                other = view.name(1 - view.seat) if view.seat is not None else "the players"
                line = view.status_line or f"Waiting for {other}..."
                if line != self._last_line:
                    self.write(line)
                    self._last_line = line
                continue
            self._last_line = None
            self.write(render_table(view, self._drawn(view)))
            if await self._turn(view) == "quit":
                return None
        return self.conn.view

    def _drawn(self, view: MatchView) -> str | None:
        """The card a stock draw just added to this seat's hand (None otherwise)."""
        hand = view.hand
        assert hand is not None
        before_number, before = self._known
        self._known = (view.hand_number, frozenset(hand.hand))
        last = hand.history[-1] if hand.history else None
        if before_number != view.hand_number or last is None or last.seat != view.seat:
            return None
        if last.kind == "draw" and last.source == "stock":
            new = set(hand.hand) - before
            return next(iter(new)) if len(new) == 1 else None
        return None

    async def _turn(self, view: MatchView) -> str:
        while True:
            line = await self.read(self.prompt)
            if line is None:
                self.write("End of input: leaving the match (it waits for you).")
                return "quit"
            try:
                cmd = parse_command(line, view)
            except CommandError as exc:
                self.write(str(exc))
                continue
            if cmd.kind == "help":
                self.write(HELP)
            elif cmd.kind == "redraw":
                self.write(render_table(view))
            elif cmd.kind == "quit":
                self.write("Leaving the match: it waits for you (come back with --match and your token).")
                return "quit"
            elif cmd.kind == "resign":
                if self.resign is None:
                    self.write("Resigning is not available here.")
                    continue
                try:
                    await self.resign()
                except ServerError as exc:
                    self.write(f"Refused: {exc.message or exc.code}")
                    continue
                return "sent"
            else:
                assert cmd.action is not None
                try:
                    await self.conn.act(cmd.action, version=view.version)
                except StaleVersion:
                    self.write("The table changed meanwhile; here it is again.")
                    return "stale"
                except ServerError as exc:
                    self.write(f"Refused: {exc.message or exc.code} ({exc.code})")
                    continue
                return "sent"


def stdin_reader() -> Reader:
    """A :data:`Reader` on the console. A daemon thread reads lines (so that quitting never
    waits for one more Enter); type-ahead is kept in order."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()

    def pump() -> None:
        try:
            for line in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line.rstrip("\r\n"))
        finally:
            # RuntimeError: the loop is already closed, nobody is reading any more.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(lines.put_nowait, None)

    threading.Thread(target=pump, name="ginrummy-stdin", daemon=True).start()
    eof = False

    async def read(prompt: str) -> str | None:
        nonlocal eof
        if eof:
            return None
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = await lines.get()
        if line is None:
            eof = True
        return line

    return read
