"""Command line: ``python -m ginrummy_client play ...`` (the terminal client), ``watch ...``
(follow a match with its watch token), ``arena ...`` (a strategy against the computer,
N matches), ``verify MATCH_ID`` (re-derive a finished match's deals from its record) and
``export MATCH_ID…`` or ``export --all`` (write matches to files: JSON, the text notation, or
every finished match as NDJSON).

The server defaults to ``$GINRUMMY_SERVER`` or http://127.0.0.1:8080.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .arena import load_strategy, run_arena
from .errors import GinRummyError
from .rest import GinRummyClient
from .terminal import TerminalUI, stdin_reader
from .verify import verify

DEFAULT_SERVER = os.environ.get("GINRUMMY_SERVER", "http://127.0.0.1:8080")


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
    play.add_argument(
        "--token", default=os.environ.get("GINRUMMY_TOKEN"), help="your player token (to come back)"
    )
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
    arena.add_argument("--token", default=None)

    check = sub.add_parser("verify", help="check a finished match's deals against their commitments")
    check.add_argument("match", metavar="MATCH_ID")
    check.add_argument("--server", default=DEFAULT_SERVER, help="server base URL (default %(default)s)")
    check.add_argument(
        "--token", default=os.environ.get("GINRUMMY_TOKEN"), help="the token of a player of the match"
    )
    out = sub.add_parser("export", help="write matches to files (JSON, text notation, or all as NDJSON)")
    out.add_argument("matches", metavar="MATCH_ID", nargs="*", help="the matches to export, one file each")
    out.add_argument("--all", action="store_true", help="every finished match, into one NDJSON file")
    out.add_argument(
        "--format", choices=("json", "text"), default="text", help="one match's format (default %(default)s)"
    )
    out.add_argument("--dir", default=".", help="the folder to write into (default: here)")
    out.add_argument("--server", default=DEFAULT_SERVER, help="server base URL (default %(default)s)")
    out.add_argument("--token", default=os.environ.get("GINRUMMY_TOKEN"), help="your player token")
    return parser


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
    strategy = load_strategy(args.strategy)
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
    return 0 if report.ok else 2


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    runner = {"play": _play, "watch": _watch, "arena": _arena, "verify": _verify, "export": _export}[
        args.command
    ]
    try:
        return asyncio.run(runner(args))
    except KeyboardInterrupt:
        print("\nInterrupted.")
        return 130
    except (GinRummyError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
