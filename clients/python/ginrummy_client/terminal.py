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
The commands (:mod:`.commands`) and the rendering (:mod:`.rendering`) are pure; only
:class:`TerminalUI`, here, talks to the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from collections.abc import Awaitable, Callable

from .commands import HELP, Command, CommandError, parse_command
from .connection import MatchConnection
from .errors import ServerError, StaleVersion
from .rendering import _who, render_hand, render_outcome, render_result, render_table
from .results import HandResult
from .views import MatchView

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
