"""The Node side of the peer benchmark, installed where it runs: ``server/bench/peer_js`` (the
boardgame.io server, its game and the load generator, with ``package-lock.json``) copied into a
cache folder and ``npm ci`` run there from the npm registry when the lock changed. Nothing is
installed into the checkout; ``node_modules`` is never committed."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "peer_js"
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ginrummy-bench" / "peer"
FILES = ("package.json", "package-lock.json", "game.js", "bgio_server.js", "loadgen.js")


class NodeUnavailable(RuntimeError):
    """Node or npm is missing, or ``npm ci`` failed (the registry unreachable, say)."""


def install(cache: Path = DEFAULT_CACHE, timeout: float = 300) -> Path:
    """The folder to run the Node scripts in, with its ``node_modules`` as the lock says."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        raise NodeUnavailable("node and npm are needed (apt-get install nodejs npm)")
    cache.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        target = cache / name
        data = (SOURCE / name).read_bytes()
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
    lock = hashlib.sha256((SOURCE / "package-lock.json").read_bytes()).hexdigest()
    stamp = cache / "node_modules" / ".ginrummy-lock"
    if stamp.exists() and stamp.read_text() == lock:
        return cache
    try:
        done = subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--silent"],
            cwd=cache,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as e:
        raise NodeUnavailable(f"npm ci took over {timeout:.0f} s") from e
    if done.returncode != 0:
        raise NodeUnavailable(f"npm ci failed: {(done.stderr or done.stdout).strip()[-500:]}")
    stamp.write_text(lock)
    return cache
