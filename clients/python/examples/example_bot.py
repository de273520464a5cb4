"""An example bot: joins a friend's match through its invite, or seeks a stranger by quick
pairing, and plays it to the end; or joins the bot ladder and plays every ladder match it is
given until stopped.

    python examples/example_bot.py --server http://127.0.0.1:8080 --invite 'INVITE_URL_OR_MATCH:CODE'
    python examples/example_bot.py --server http://127.0.0.1:8080 --seek --rated --clock 20+120
    python examples/example_bot.py --server http://127.0.0.1:8080 --ladder --owner you@example.org

Without ``--server`` it plays on ``$GINRUMMY_SERVER``, else on the server an invite URL names,
else on http://127.0.0.1:8080.

Its whole brain is ``choose``: given the view of its seat, it returns one of
``view.legal_actions``. Replace it with your own and you have your own Gin Rummy bot.
"""

import argparse
import asyncio
import os
import sys
import urllib.parse
from collections.abc import Mapping

from ginrummy_client import (
    Action,
    GinRummyClient,
    GinRummyError,
    MatchView,
    TimeControl,
    deadwood,
    play_ladder,
)

LOCAL_SERVER = "http://127.0.0.1:8080"


def choose(view: MatchView) -> Action:
    hand = view.hand
    legal = view.legal_actions
    left = hand.discard_deadwood  # for each legal discard: the deadwood it would leave
    knocks = [a for a in legal if a.kind == "knock"]
    if knocks:  # going out scores: knock (or gin) as soon as the rules allow
        return min(knocks, key=lambda a: left[a.card])
    discards = [a for a in legal if a.kind == "discard"]
    if discards:  # keep the ten cards with the least deadwood
        return min(discards, key=lambda a: left[a.card])
    # Drawing: take the face-up card only if it leaves less deadwood than we hold now.
    top = hand.top_discard
    for a in legal:
        if a.kind == "take_upcard" or a.source == "discard":
            after = min(deadwood(c for c in [*hand.hand, top] if c != out) for out in hand.hand)
            if after < hand.deadwood:
                return a
    return next(a for a in legal if a.kind in ("pass", "draw") and a.source != "discard")


def report(final: MatchView, prefix: str = "") -> None:
    mine, theirs = final.scores[final.seat], final.scores[1 - final.seat]
    verdict = "won" if final.outcome and final.outcome.winner == final.seat else "lost"
    print(f"{prefix}{verdict} {mine} to {theirs} after {final.hand_number} hands", flush=True)


async def ladder(client: GinRummyClient, args: argparse.Namespace) -> None:
    me = await client.create_bot(args.name, owner=args.owner, description="The example bot: least deadwood")
    entry = await client.enroll()
    print(f"{me.name} ({me.player_id}) enrolled in the ladder: rating {entry.rating:.0f}", flush=True)
    await play_ladder(
        client,
        choose,
        matches=args.matches,
        on_finished=lambda m, final: report(final, f"ladder match {m.match_id}: "),
    )
    for standing in await client.ladder():
        print(standing, flush=True)


def default_server(invite: str | None, environ: Mapping[str, str] = os.environ) -> str:
    """The server to play on when ``--server`` is not given: ``$GINRUMMY_SERVER``, else the
    scheme and host of an invite URL, else the local server.

    >>> default_server("https://gin.example:8443/?match=m_1&invite=XYZ", {})
    'https://gin.example:8443'
    >>> default_server("m_1:XYZ", {})
    'http://127.0.0.1:8080'
    >>> default_server("https://gin.example/?match=m_1&invite=XYZ", {"GINRUMMY_SERVER": "http://h:1"})
    'http://h:1'
    """
    if environ.get("GINRUMMY_SERVER"):
        return environ["GINRUMMY_SERVER"]
    parts = urllib.parse.urlsplit((invite or "").strip())
    if parts.scheme in ("http", "https") and parts.netloc:
        return f"{parts.scheme}://{parts.netloc}"
    return LOCAL_SERVER


async def main(args: argparse.Namespace) -> None:
    client = GinRummyClient(args.server)
    if args.ladder:
        await ladder(client, args)
        return
    me = await client.create_player(args.name)
    if args.seek:
        clock = None
        if args.clock:
            move, _, bank = args.clock.partition("+")
            clock = TimeControl("realtime", int(move), int(bank or 0))
        print(f"{me.name} seeks a {'rated' if args.rated else 'casual'} match", flush=True)
        async with client.seek(rules=args.rules, time_control=clock, rated=args.rated) as seek:
            pairing = await seek.paired()
        match: object = pairing.match_id
        print(f"{me.name} was paired into match {pairing.match_id} in seat {pairing.seat}", flush=True)
    else:
        ticket = await client.join_invite(args.invite, args.match)
        match = ticket
        print(f"{me.name} joined match {ticket.match_id} in seat {ticket.seat}", flush=True)
    async with client.connect(match) as conn:  # type: ignore[arg-type]
        final = await conn.play(choose)  # every turn: choose(view), send it, wait for the ack
    report(final)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--server",
        help=f"server base URL (default: $GINRUMMY_SERVER, the invite's server, or {LOCAL_SERVER})",
    )
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--invite", help="the invite URL, or MATCH_ID:CODE")
    how.add_argument("--seek", action="store_true", help="quick pairing: play the next stranger who seeks")
    how.add_argument("--ladder", action="store_true", help="register as a bot, enroll, play ladder matches")
    parser.add_argument("--match", help="the match id, if the invite does not name it")
    parser.add_argument("--rules", default="house", help="with --seek: the rules preset")
    parser.add_argument("--rated", action="store_true", help="with --seek: a rated match")
    parser.add_argument("--clock", help="with --seek: a real-time clock MOVE+BANK seconds, e.g. 20+120")
    parser.add_argument("--name", default="Example bot")
    parser.add_argument("--owner", default="example", help="with --ladder: who runs the bot")
    parser.add_argument("--matches", type=int, help="with --ladder: stop after this many matches")
    args = parser.parse_args(argv)
    args.server = args.server or default_server(args.invite)
    return args


def run(argv: list[str] | None = None) -> int:
    """Play as the command line says; 0 when done, 1 (and one line on stderr) when the server
    cannot be reached or says no."""
    args = parse_args(argv)
    try:
        asyncio.run(main(args))
    except KeyboardInterrupt:
        return 130
    except (GinRummyError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # refused, unknown host, timed out (urllib's URLError is one too)
        reason = getattr(exc, "reason", None) or exc
        print(f"error: cannot reach the server at {args.server}: {reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(run())
