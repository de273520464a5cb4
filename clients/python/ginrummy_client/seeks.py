"""Quick pairing from Python: seek a match on the lobby socket (``/ws/lobby``), wait for the
pairing, cancel (docs/protocol.md, "Quick pairing").

    async with client.seek(rules="house", time_control=TimeControl.realtime(20, 120), rated=True) as seek:
        pairing = await seek.paired()          # a stranger (or, with computer_after, the computer)
    async with client.connect(pairing.match_id) as conn:
        await conn.play(strategies.quick)

The seek lives while the lobby socket is open: leaving the ``async with`` before the pairing
withdraws it. It never imports the server: only the documented messages go over the wire.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from .clocks import TimeControl
from .errors import ConnectionLost, ProtocolError, server_error

__all__ = ["Pairing", "Seek"]


@dataclass(frozen=True, slots=True)
class Pairing:
    """Where a seek ended: the match, your seat, and whether the opponent is a stranger
    (``human``) or the computer (nobody came within ``computer_after``)."""

    seek_id: str
    match_id: str
    seat: int
    opponent: str

    @staticmethod
    def from_wire(d: Mapping[str, Any]) -> Pairing:
        try:
            return Pairing(str(d["seek_id"]), str(d["match_id"]), int(d["seat"]), str(d["opponent"]))
        except (KeyError, TypeError, ValueError) as e:
            raise ProtocolError(f"a paired message without {e}") from e


class Seek:
    """One seek on its own lobby socket. Use as ``async with client.seek(...) as seek:``."""

    def __init__(self, url: str, message: dict[str, Any], *, open_timeout: float = 10.0) -> None:
        self.url = url
        self.message = message
        self.open_timeout = open_timeout
        self.seek_id: str | None = None
        """The seek's id once the server answered ``seeking`` (None when paired at once)."""
        self.computer_at: str | None = None
        self._ws: ClientConnection | None = None
        self._pairing: Pairing | None = None

    async def __aenter__(self) -> Self:
        self._ws = await connect(self.url, open_timeout=self.open_timeout)
        await self._ws.send(json.dumps(self.message))
        answer = await self._next()
        if answer["type"] == "seeking":
            self.seek_id = str(answer["seek_id"])
            self.computer_at = answer.get("computer_at")
        elif answer["type"] == "paired":
            self._pairing = Pairing.from_wire(answer)
        else:
            raise ProtocolError(f"unexpected answer to seek: {answer['type']!r}")
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._ws is not None:
            await self._ws.close()

    async def _next(self) -> dict[str, Any]:
        assert self._ws is not None
        while True:
            try:
                raw = await self._ws.recv()
            except ConnectionClosed as e:
                raise ConnectionLost(f"the lobby socket closed: {e}") from e
            data = json.loads(raw)
            if not isinstance(data, dict) or "type" not in data:
                raise ProtocolError("a lobby message without a type")
            if data["type"] == "error":
                raise server_error(str(data.get("code")), str(data.get("message", "")))
            if data["type"] != "pong":
                return data

    async def paired(self, timeout: float | None = None) -> Pairing:
        """Wait for the pairing (``timeout`` seconds at most; None: as long as it takes)."""
        while self._pairing is None:
            data = await asyncio.wait_for(self._next(), timeout)
            if data["type"] == "paired":
                self._pairing = Pairing.from_wire(data)
            elif data["type"] == "cancelled":
                raise ProtocolError("the seek was cancelled")
        return self._pairing

    async def cancel(self) -> Pairing | None:
        """Withdraw the seek; its pairing instead when it was paired first."""
        if self._pairing is not None:
            return self._pairing
        assert self._ws is not None
        await self._ws.send(json.dumps({"type": "cancel"}))
        data = await self._next()
        if data["type"] == "paired":
            self._pairing = Pairing.from_wire(data)
            return self._pairing
        return None


def seek_message(
    token: str,
    *,
    rules: str,
    time_control: TimeControl | None,
    rated: bool,
    computer_after: int | None,
    difficulty: str,
) -> dict[str, Any]:
    """The ``seek`` message (docs/protocol.md).

    >>> seek_message("T", rules="house", time_control=None, rated=True, computer_after=None, difficulty="normal")
    {'type': 'seek', 'token': 'T', 'rules': 'house', 'rated': True, 'difficulty': 'normal'}
    """
    message: dict[str, Any] = {"type": "seek", "token": token, "rules": rules, "rated": rated}
    if time_control is not None:
        message["time_control"] = time_control.to_wire()
    if computer_after is not None:
        message["computer_after"] = computer_after
    message["difficulty"] = difficulty
    return message
