"""The client ids a live match has answered, per seat (docs/protocol.md, ``act``): an id sent
again with the same action is answered with the version it produced, and with another action it
is refused (``id_reused``).

A match keeps every id until it ends, so each is packed: its 64-bit hash (Python's string hash,
keyed per process), its version and its action's number, 18 bytes in all. Held as strings in a
table of (version, action) tuples, each took about 140 bytes with its id (a match of 60 human
actions: 7 KB more; ``measure_service_memory`` in ``server/bench/load/measure.py``). Two ids of
one seat share a hash with odds of about n²/2⁶⁵ for n ids (a few in 10¹⁵ over a long match),
and the key keeps a client from choosing such a pair.
"""

from __future__ import annotations

from array import array

from server.rules import Action

_NUMBERS: dict[Action, int] = {}
_ACTIONS: list[Action] = []
"""Every action answered so far, numbered (at most the hundred-odd actions of the rules)."""


def _number(action: Action) -> int:
    n = _NUMBERS.get(action)
    if n is None:
        n = _NUMBERS[action] = len(_ACTIONS)
        _ACTIONS.append(action)
    return n


def _key(client_id: str) -> bytes:
    return hash(client_id).to_bytes(8, "little", signed=True)


class SeatAnswers:
    """One seat's answered ids: for each, the version its action produced and that action."""

    __slots__ = ("_actions", "_keys", "_versions")

    def __init__(self) -> None:
        self._keys = bytearray()
        self._versions = array("q")
        self._actions = array("H")

    def __len__(self) -> int:
        return len(self._versions)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SeatAnswers):
            return NotImplemented
        return (self._keys, self._versions, self._actions) == (other._keys, other._versions, other._actions)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def get(self, client_id: str) -> tuple[int, Action] | None:
        """The version and action ``client_id`` was answered with, or None if it is new."""
        i = self._find(_key(client_id))
        return None if i < 0 else (self._versions[i], _ACTIONS[self._actions[i]])

    def add(self, client_id: str, version: int, action: Action) -> None:
        """Remember ``client_id``'s answer (a second answer for it replaces the first)."""
        self._put(_key(client_id), version, _number(action))

    def update(self, other: SeatAnswers) -> None:
        """Add every answer of ``other`` (later ones, from the store)."""
        for i in range(len(other)):
            self._put(bytes(other._keys[8 * i : 8 * i + 8]), other._versions[i], other._actions[i])

    def _put(self, key: bytes, version: int, number: int) -> None:
        i = self._find(key)
        if i >= 0:
            self._versions[i], self._actions[i] = version, number
            return
        self._keys += key
        self._versions.append(version)
        self._actions.append(number)

    def _find(self, key: bytes) -> int:
        """The index of ``key``'s answer, or -1 (a match must start on a multiple of 8)."""
        at = self._keys.find(key)
        while at >= 0 and at % 8:
            at = self._keys.find(key, at + 1)
        return at // 8 if at >= 0 else -1


Answers = tuple[SeatAnswers, SeatAnswers]


def no_answers() -> Answers:
    return (SeatAnswers(), SeatAnswers())
