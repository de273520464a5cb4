"""Command line: ``python -m ginrummy_client play ...`` (the terminal client), ``watch ...``
(follow a match with its watch token), ``arena ...`` (a strategy against the computer,
N matches), ``verify MATCH_ID`` (re-derive a finished match's deals from its record) and
``export MATCH_ID…`` or ``export --all`` (write matches to files: JSON, the text notation, or
every finished match as NDJSON).
``analysis MATCH_ID`` (Hard's analysis of your decisions, the biggest mistakes first).

The server defaults to ``$GINRUMMY_SERVER`` or http://127.0.0.1:8080, and ``--token`` to
``$GINRUMMY_TOKEN`` (so the token need not be typed, nor kept in the shell's history).
A token, watch token or invite may begin with '-' (the server no longer issues such, but old
ones stay valid): ``--token=TOKEN`` always works, and ``--token TOKEN`` is read as the token too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .analysis import format_analysis
from .arena import load_strategy, run_arena
from .errors import GinRummyError
from .rest import GinRummyClient
from .terminal import TerminalUI, stdin_reader
from .verify import verify

DEFAULT_SERVER = os.environ.get("GINRUMMY_SERVER", "http://127.0.0.1:8080")
TOKEN_VARIABLE = "GINRUMMY_TOKEN"
# The options whose value is something a person pastes, which may begin with '-'.
PASTED = ("--token", "--watch-token", "--join")


class UsageError(Exception):
    """A command line that cannot be run as given: one line on stderr, exit status 2 (as
    argparse's own usage errors)."""


def _token(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--token", default=os.environ.get(TOKEN_VARIABLE), help=f"{what} (or set ${TOKEN_VARIABLE})"
    )


def _choices(parser: argparse.ArgumentParser) -> None:
    # Any name: the server knows its difficulties and presets (GET /api/difficulties and
    # /api/rules) and answers an unknown one with bad_request, naming the ones it has.
    # The old name, still accepted, no longer shown.
    parser.add_argument("--level", dest="difficulty", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    parser.add_argument(
        "--difficulty",
        dest="difficulty",
        default="normal",
        metavar="NAME",
        help="the computer's difficulty, as the server names it (e.g. easy, normal, hard; default %(default)s)",
    )
    parser.add_argument(
        "--rules",
        default="house",
        metavar="NAME",
        help="rule preset, as the server names it (default %(default)s)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ginrummy_client", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a match in the terminal")
    play.add_argument("--server", default=DEFAULT_SERVER, help="server base URL (default %(default)s)")
    play.add_argument("--name", default=os.environ.get("USER", "Player"), help="your name for a new identity")
    _token(play, "your player token (to come back; none: a new identity)")
    play.add_argument(
        "--vs", choices=("computer", "friend"), default="computer", help="opponent (default computer)"
    )
    _choices(play)
    play.add_argument("--join", metavar="INVITE", help="join a friend's match: the invite URL or MATCH:CODE")
    play.add_argument("--match", metavar="MATCH_ID", help="come back to a match of yours (needs --token)")

    watch = sub.add_parser("watch", help="watch a match (with its watch token)")
    watch.add_argument("--server", default=DEFAULT_SERVER, help="server base URL (default %(default)s)")
    watch.add_argument("--match", metavar="MATCH_ID", required=True)
    watch.add_argument("--watch-token", required=True, help="the match's watch token (its creator has it)")

    arena = sub.add_parser("arena", help="run a strategy against the computer for N matches")
    arena.add_argument("--server", default=DEFAULT_SERVER, help="server base URL (default %(default)s)")
    arena.add_argument(
        "--strategy", default="quick", help="module:function, path/file.py:function, quick or random"
    )
    _choices(arena)
    arena.add_argument("--matches", type=int, default=10)
    arena.add_argument("--name", default="Arena bot")
    _token(arena, "the bot's player token (none: a new identity)")

    check = sub.add_parser("verify", help="check a finished match's deals against their commitments")
    check.add_argument("match", metavar="MATCH_ID")
    check.add_argument("--server", default=DEFAULT_SERVER, help="server base URL (default %(default)s)")
    _token(check, "the token of a player of the match")
    out = sub.add_parser("export", help="write matches to files (JSON, text notation, or all as NDJSON)")
    out.add_argument("matches", metavar="MATCH_ID", nargs="*", help="the matches to export, one file each")
    out.add_argument("--all", action="store_true", help="every finished match, into one NDJSON file")
    out.add_argument(
        "--format", choices=("json", "text"), default="text", help="one match's format (default %(default)s)"
    )
    out.add_argument("--dir", default=".", help="the folder to write into (default: here)")
    out.add_argument("--server", default=DEFAULT_SERVER, help="server base URL (default %(default)s)")
    _token(out, "your player token")
    explain = sub.add_parser("analysis", help="Hard's analysis of your decisions in a match")
    explain.add_argument("match", metavar="MATCH_ID")
    explain.add_argument("--server", default=DEFAULT_SERVER, help="server base URL (default %(default)s)")
    _token(explain, "your player token")
    explain.add_argument("--every", action="store_true", help="every decision that differs from Hard's")
    return parser


def _glue_pasted(argv: Sequence[str]) -> list[str]:
    """``--token -abc`` as ``--token=-abc``: argparse reads a value beginning with '-' as an
    option ("expected one argument"), and one in 64 of the tokens the server used to issue
    began so. A following word that looks like an option (``--`` anything, or ``-`` and one
    letter, as ``-h``; no token or invite is that short) is left alone."""
    glued: list[str] = []
    i = 0
    while i < len(argv):
        word, value = argv[i], argv[i + 1] if i + 1 < len(argv) else None
        if (
            word in PASTED
            and value
            and value.startswith("-")
            and not value.startswith("--")
            and len(value) > 2
        ):
            glued.append(f"{word}={value}")
            i += 2
        else:
            glued.append(word)
            i += 1
    return glued


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = build_parser()
    words = sys.argv[1:] if argv is None else argv
    return parser.parse_args(_glue_pasted(words))


async def _export(args: argparse.Namespace) -> int:
    if not args.token:
        raise ValueError("export needs --token (or $GINRUMMY_TOKEN): the player whose matches to write")
    if not args.matches and not args.all:
        raise ValueError("name the matches to export, or pass --all")
    client = GinRummyClient(args.server, args.token)
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    for match_id in args.matches:
        exported = await client.export(match_id, args.format)
        path = folder / f"{match_id}.{'txt' if args.format == 'text' else 'json'}"
        text = exported if args.format == "text" else json.dumps(exported, ensure_ascii=False) + "\n"
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    if args.all:
        path = folder / "matches.ndjson"
        count = 0
        with path.open("w", encoding="utf-8") as f:
            async for exported in client.export_all():
                f.write(json.dumps(exported, ensure_ascii=False) + "\n")
                count += 1
        print(f"wrote {path} ({count} finished match{'' if count == 1 else 'es'})")
    return 0


async def _play(args: argparse.Namespace) -> int:
    client = GinRummyClient(args.server, args.token)
    if client.token is None:
        me = await client.create_player(args.name)
        print(f"Playing as {me.name}. Your token (keep it to come back to your matches): {me.token}")
    note = None
    if args.join:
        ticket = await client.join_invite(args.join, args.match)
        match_id = ticket.match_id
        conn = client.connect(ticket)
    elif args.match:
        match_id = args.match
        conn = client.connect(match_id)
    else:
        opponent = "human" if args.vs == "friend" else "computer"
        ticket = await client.create_match(opponent=opponent, difficulty=args.difficulty, rules=args.rules)
        match_id = ticket.match_id
        conn = client.connect(ticket)
        if ticket.invite is not None:
            invite = ticket.invite.url or f"{match_id}:{ticket.invite.code}"
            note = (
                f"Send your friend this invite: {invite}\n"
                f"(they run: python -m ginrummy_client play --server {args.server} --join '{invite}')"
            )
            print(note)
        if ticket.watch_token:
            print(
                f"Watch it: python -m ginrummy_client watch --server {args.server} "
                f"--match {match_id} --watch-token {ticket.watch_token}"
            )
    print(f"Match {match_id}. Type h for help.")
    read = stdin_reader()
    ui = TerminalUI(conn, read, print, resign=lambda: client.resign(match_id), waiting_note=note)
    async with conn:
        final = await ui.run()
    if final is None:
        print(
            f"To come back: python -m ginrummy_client play --server {args.server} "
            f"--token {client.token} --match {match_id}"
        )
    return 0


async def _watch(args: argparse.Namespace) -> int:
    client = GinRummyClient(args.server)
    conn = client.connect(args.match, token=args.watch_token)

    async def no_input(prompt: str) -> None:  # a watcher is never asked anything
        return None

    async with conn:
        await TerminalUI(conn, no_input, print).run()
    return 0


async def _arena(args: argparse.Namespace) -> int:
    try:
        strategy = load_strategy(args.strategy)
    except ValueError as exc:
        raise UsageError(f"--strategy: {exc}") from exc
    await run_arena(
        args.server,
        strategy,
        difficulty=args.difficulty,
        rules=args.rules,
        matches=args.matches,
        name=args.name,
        token=args.token,
        strategy_name=args.strategy,
    )
    return 0


async def _verify(args: argparse.Namespace) -> int:
    if not args.token:
        raise ValueError("verify needs --token (or $GINRUMMY_TOKEN): a player of the match")
    record = await GinRummyClient(args.server, args.token).get_record(args.match)
    report = verify(record)
    print(report.summary())
    return 0 if report.ok or report.nothing_to_check else 2


async def _analysis(args: argparse.Namespace) -> int:
    if not args.token:
        raise ValueError("analysis needs --token (or $GINRUMMY_TOKEN): a player of the match")
    print(
        format_analysis(await GinRummyClient(args.server, args.token).analysis(args.match), every=args.every)
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    runners = {"play": _play, "watch": _watch, "arena": _arena, "verify": _verify, "export": _export}
    runner = (runners | {"analysis": _analysis})[args.command]
    try:
        return asyncio.run(runner(args))
    except KeyboardInterrupt:
        print("\nInterrupted.")
        return 130
    except UsageError as exc:
        print(f"{build_parser().prog} {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (GinRummyError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
