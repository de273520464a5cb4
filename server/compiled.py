"""Which hot-path modules run compiled in this installation.

A wheel compiles them with mypyc (``setup.py``: the same Python source as C extension modules,
about three times faster); an editable install runs them as Python. Both play the same actions
(tests/test_wheel.py compares a tournament played by each).
"""

from __future__ import annotations

import importlib
from importlib.machinery import EXTENSION_SUFFIXES

MODULES = (
    "server.rules.melds",
    "server.rules.hand",
    "server.rules.match",
    "server.wire.convert",
    "server.transport.present",
    "server.storage.batch_sql",
    "server.bots.sim",
    "server.bots.handstrength",
    "server.bots.knowledge",
    "server.bots.rollout",
)
"""Kept in step with ``COMPILED`` in setup.py (a test compares them)."""


def compiled() -> list[str]:
    """The modules of ``MODULES`` loaded from an extension module, not from Python source."""
    return [
        name
        for name in MODULES
        if str(importlib.import_module(name).__file__).endswith(tuple(EXTENSION_SUFFIXES))
    ]
