"""``python -m server.bench load``: many concurrent matches against the computer, measured.

A separate process from the server, on loopback only, bounded in count and time. It starts the
server itself (``python -m server``, SQLite in a temporary folder or a fresh Postgres database
that it drops afterwards; ``--servers K`` processes) or targets running ones (``--server URL``),
then:

1. creates ``--matches N`` players, matches against the computer and sockets;
2. **paced**: every scripted player acts after a human-like pause (``--think``, uniform between
   half and one and a half times it) for ``--duration`` seconds, starting a new match whenever
   one ends, so N matches stay live: latency from an action to its ``ack`` and to the
   computer's reply (the next state where it is the player's turn again), errors, and the
   server's memory per live match (RSS growth of its processes over N);
3. **saturated**: the same players with no pause for ``--saturate`` seconds: the most actions
   per second the server can take;
4. checks every acknowledged action against the final record of its match (resigning the
   matches still going): an acknowledged action missing from the record is *lost*; with
   ``--check-hidden`` it also replays every record and checks that no state message ever named
   a card hidden from its seat;
5. measures the floor: a bare aiohttp WebSocket echo server in its own process, the same
   number of clients sending as fast as they can, for ``--echo-duration`` seconds;
6. measures the service's memory per live match in a fresh process with ``tracemalloc``.

It prints the figures (``--json FILE`` writes them too). Nothing here is a test: the targets are
printed beside the figures, met or not. It never reads a hidden card except from a finished
match's record, which the protocol publishes.

The modules: ``players`` (the scripted players), ``clients`` (their sessions, one loopback
address per group), ``servers`` (the server processes it starts), ``echo`` (the floor),
``measure`` (CPU, memory, the game work alone), ``hidden`` (the hidden-card check), ``figures``
(percentiles, each phase's counts), ``runner`` (the run), ``report`` (the verdict and the printed
report) and ``cli`` (the command line).
"""

from __future__ import annotations

from server.bench.load.cli import main
from server.bench.load.clients import CLIENTS_PER_ADDRESS, client_sessions, gather_limited
from server.bench.load.figures import PhaseStats, percentile
from server.bench.load.hidden import hidden_card_leaks
from server.bench.load.measure import measure_game_work
from server.bench.load.players import Control, Player, choose
from server.bench.load.report import format_report
from server.bench.load.runner import Options, run
from server.bench.load.servers import (
    DEFAULT_POSTGRES_ADMIN,
    ROOT,
    Server,
    free_port,
    postgres_database,
    start_server,
    stop_server,
    tracebacks,
    wait_healthy,
)

__all__ = [
    "CLIENTS_PER_ADDRESS",
    "DEFAULT_POSTGRES_ADMIN",
    "ROOT",
    "Control",
    "Options",
    "PhaseStats",
    "Player",
    "Server",
    "choose",
    "client_sessions",
    "format_report",
    "free_port",
    "gather_limited",
    "hidden_card_leaks",
    "main",
    "measure_game_work",
    "percentile",
    "postgres_database",
    "run",
    "start_server",
    "stop_server",
    "tracebacks",
    "wait_healthy",
]
