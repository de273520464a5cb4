"""A copy of a checkout with its hot paths compiled as a wheel compiles them, for the benchmarks
to run beside the checkout itself (``--variant name:compiled=1``).

A wheel (``pip install .``, the Docker image) runs the modules of setup.py's ``COMPILED`` as
mypyc extension modules; an editable checkout runs them as Python. To measure what an operator
runs, a benchmark's variant with ``compiled=1`` runs the server from a copy of its checkout (this
one unless ``root=DIR``) whose modules were built in place (``GINRUMMY_COMPILE=1 python setup.py
build_ext --inplace``: the same sources, the same compiler options). The copy is kept in a
cache folder named by a digest of the files copied, so it is built once per content (about 45
seconds here) and a change to any file gives a new one. Needs mypy (the ``test`` extra) and a C
compiler.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

DEFAULT_CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ginrummy-bench" / "compiled"
)
KEEP = 4
"""Copies kept in the cache; the ones used least recently go first."""


class CompileFailed(RuntimeError):
    """The copy could not be built (no mypy, no C compiler, a module mypyc refuses)."""


def sources(root: Path) -> list[str]:
    """The checkout's files as git sees them (tracked, and new ones not ignored), relative."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-co", "--exclude-standard", "-z"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise CompileFailed(f"{root} is not a git checkout: {e}") from e
    names = sorted(n for n in out.decode().split("\0") if n and (root / n).is_file())
    if "setup.py" not in names:
        raise CompileFailed(f"{root} has no setup.py: not a checkout of this project")
    return names


def digest(root: Path, names: list[str]) -> str:
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode() + b"\0" + (root / name).read_bytes() + b"\0")
    return h.hexdigest()[:16]


def compiled_copy(root: Path, cache: Path = DEFAULT_CACHE) -> Path:
    """The folder of a compiled copy of the checkout at ``root``, built if the cache has none of
    its current content."""
    names = sources(root)
    target = cache / f"compiled-{digest(root, names)}"
    done = target / ".built"
    if done.exists():
        done.touch()  # used now: pruned last
        return target
    shutil.rmtree(target, ignore_errors=True)
    for name in names:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target / name)
    print(f"building a compiled copy of {root} in {target}", file=sys.stderr)
    env = {**os.environ, "GINRUMMY_COMPILE": "1"}
    build = [sys.executable, "setup.py", "build_ext", "--inplace"]
    out = subprocess.run(build, cwd=target, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        shutil.rmtree(target, ignore_errors=True)
        raise CompileFailed(f"building the compiled copy failed:\n{(out.stdout + out.stderr)[-2000:]}")
    shutil.rmtree(target / "build", ignore_errors=True)  # the build's intermediate files
    done.touch()
    _prune(cache, keep=target)
    return target


def _prune(cache: Path, keep: Path) -> None:
    copies = sorted(
        (p for p in cache.glob("compiled-*") if p != keep),
        key=lambda p: (p / ".built").stat().st_mtime if (p / ".built").exists() else 0.0,
    )
    for old in copies[: max(0, len(copies) - (KEEP - 1))]:
        shutil.rmtree(old, ignore_errors=True)
