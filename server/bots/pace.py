"""The computer's pace: how long it pauses before each move, as a player chooses it.

A pace is a factor on the server's configured pause (``--bot-delay``). The registry is the one
source of the names: the wire's ``hello.pace`` enum follows it (the browser's settings offer the
same three), and the service turns a name into seconds, never faster than its floor.

>>> PACES["slow"], PACES["fast"]
(2.0, 0.5)
"""

from __future__ import annotations

from types import MappingProxyType

PACES = MappingProxyType({"slow": 2.0, "normal": 1.0, "fast": 0.5})
"""Pace name -> factor on the server's pause, slowest first."""

DEFAULT_PACE = "normal"

__all__ = ["DEFAULT_PACE", "PACES"]
