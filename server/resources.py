"""Where the server's data files are: the rule presets, the Alembic migrations and the browser
client.

The repository keeps them outside the package, in ``seeds/rules/``, ``migrations/`` (with
``alembic.ini``) and ``clients/web/``. A built wheel (``pip install .``) ships copies of them
inside the package, in ``server/_data/`` (``setup.py`` copies them at build time). A checkout
(an editable install, or running from the source tree) has no ``server/_data/``: the
repository's own folders are used, so edits show on reload.

The package's folder is ``importlib.resources.files("server")`` for any package installed on
disk; it is taken from ``__file__`` instead because importing :mod:`importlib.resources` loads
``shutil`` and ``tempfile``, which ``server.rules`` (a user of this module) must not load
(``tests/rules/test_purity.py``), and because Alembic and aiohttp need real paths anyway.
"""

from __future__ import annotations

from pathlib import Path

PACKAGED = Path(__file__).resolve().parent / "_data"
"""The data shipped inside an installed wheel (absent in a checkout)."""

CHECKOUT = PACKAGED.parents[1]
"""The repository root when running from a checkout (else the folder holding the package)."""

LAYOUT = {
    "rules": "seeds/rules",
    "ratings.json": "seeds/ratings.json",
    "migrations": "migrations",
    "alembic.ini": "alembic.ini",
    "web": "clients/web",
}
"""Each data file or folder, by its name in ``server/_data/``: its place in the repository."""

PRESETS = ("classic", "house")
"""Rule presets the server cannot run without (its defaults and the clients name them)."""


def path(name: str) -> Path:
    """The file or folder ``name`` of :data:`LAYOUT`: the copy inside the installed package if
    there is one, else the checkout's own (which may not exist)."""
    packaged = PACKAGED / name
    if packaged.exists():
        return packaged
    return CHECKOUT / LAYOUT[name]


def rules_dir() -> Path:
    """The folder of rule presets (``*.json``); raises if it is missing, empty or lacks one of
    :data:`PRESETS`, so an incomplete install fails at import rather than running without rules."""
    folder = path("rules")
    found = {p.stem for p in folder.glob("*.json")}
    missing = [name for name in PRESETS if name not in found]
    if missing:
        raise FileNotFoundError(
            f"rule presets {', '.join(f'{m}.json' for m in missing)} not found in {folder} "
            "(a broken install: reinstall the package, or run from a checkout)"
        )
    return folder


def web_root(configured: Path) -> Path:
    """The folder the browser client is served from: ``configured`` (``Settings.static_dir``),
    except that its default, the checkout's ``clients/web``, stands for the client wherever it
    is installed (inside the package, from a wheel)."""
    return path("web") if configured == CHECKOUT / LAYOUT["web"] else configured
