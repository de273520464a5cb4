"""Check a match record's deals yourself: :func:`verify` re-derives every finished hand from the
seed the record reveals (the server's ``sha256`` scheme, written up in the server's
docs/deals.md) and compares the commitment, both hands, the upcard and the stock with what the
record says was played.

It imports nothing from the server: it is a second implementation of the documented scheme.

>>> deck = deal_deck("750677e9b953845ba5069d27a3775fbced186987fd0f4a8c968ac457a7d415a8")
>>> " ".join(deck[:10])  # seat 0's ten cards (docs/deals.md, the first test vector)
'4s Qh Kd 4h Qc Ac Ks 3d Tc 9d'
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

RANKS = "A23456789TJQK"
SUITS = "cdhs"
CARDS = tuple(r + s for s in SUITS for r in RANKS)
"""Card ``k`` of the scheme: ``Ac 2c .. Kc Ad .. Ks``."""


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _stream(seed: str) -> Iterator[int]:
    block = 0
    while True:
        yield from hashlib.sha256(f"{seed}:{block}".encode()).digest()
        block += 1


def deal_deck(seed: str) -> list[str]:
    """The deck (card codes, first dealt first) that ``seed`` deals under the ``sha256`` scheme."""
    deck = list(range(52))
    stream = _stream(seed)
    for i in range(51, 0, -1):
        m = i + 1
        b = next(stream)
        while b >= 256 - 256 % m:
            b = next(stream)
        j = b % m
        deck[i], deck[j] = deck[j], deck[i]
    return [CARDS[k] for k in deck]


@dataclass(frozen=True, slots=True)
class HandCheck:
    """One hand of the record: ``verified`` when its seed matches its commitment and deals
    exactly its cards; ``problems`` says what did not (empty when verified), ``skipped`` why it
    was not checked (a hand left unfinished by a resignation has no seed)."""

    number: int
    verified: bool
    problems: tuple[str, ...] = ()
    skipped: str | None = None


@dataclass(frozen=True, slots=True)
class DealReport:
    """:func:`verify`'s answer. ``ok``: the record's scheme is verifiable, at least one hand
    finished, and every finished hand verified. ``nothing_to_check``: the scheme is verifiable
    but no hand finished, so no seed was revealed (not a failure, and not ``ok``). ``scheme``
    is the record's ``deal``."""

    scheme: str
    hands: tuple[HandCheck, ...] = field(default=())

    @property
    def _problems(self) -> list[HandCheck]:
        # A skipped hand may still have one: a commitment other than the one shown in play.
        return [h for h in self.hands if h.problems or (h.skipped is None and not h.verified)]

    @property
    def ok(self) -> bool:
        checked = [h for h in self.hands if h.skipped is None]
        return self.scheme == "sha256" and bool(checked) and not self._problems

    @property
    def nothing_to_check(self) -> bool:
        return self.scheme == "sha256" and not self._problems and all(h.skipped for h in self.hands)

    def summary(self) -> str:
        if self.scheme != "sha256":
            return f"not verifiable: this match was dealt by the {self.scheme} scheme"
        bad = self._problems
        if bad:
            lines = [f"hand {h.number}: {'; '.join(h.problems)}" for h in bad]
            return "DEAL NOT VERIFIED\n" + "\n".join(lines)
        if self.nothing_to_check:
            return "Nothing to verify: no hand of this match finished, so no seed was revealed"
        checked = [h for h in self.hands if h.skipped is None]
        return f"Deal verified: {len(checked)} hand{'s' * (len(checked) != 1)} re-derived from their seeds"


def check_hand(hand: Mapping[str, Any]) -> HandCheck:
    """Check one hand of a record (see :func:`verify`)."""
    number = int(hand.get("number", 0))
    seed, commitment = hand.get("seed"), hand.get("deal_commitment")
    if seed is None:
        return HandCheck(number, False, skipped="unfinished: its seed is not revealed")
    problems = []
    if not isinstance(seed, str) or commitment is None or sha256_hex(seed) != commitment:
        problems.append("the seed does not match the commitment")
    else:
        deck = deal_deck(seed)
        hands = hand.get("hands") or [[], []]
        for seat in (0, 1):
            if sorted(hands[seat]) != sorted(deck[seat * 10 : seat * 10 + 10]):
                problems.append(f"seat {seat}'s hand is not the one dealt")
        if hand.get("upcard") != deck[20]:
            problems.append("the upcard is not the one dealt")
        if list(hand.get("stock") or []) != deck[21:]:
            problems.append("the stock is not the one dealt")
    return HandCheck(number, not problems, tuple(problems))


def verify(record: Mapping[str, Any], commitments: Mapping[int, str] | None = None) -> DealReport:
    """Re-derive every finished hand of a match record (``GET /api/matches/{id}/record``, as
    :meth:`GinRummyClient.get_record <ginrummy_client.GinRummyClient.get_record>` returns it).

    ``commitments`` (hand number -> ``deal_commitment``), when given, are those your client
    saw in the views while playing: each must equal the record's, so the server cannot have
    changed a commitment after showing it.
    """
    scheme = str(record.get("deal", "legacy"))
    if scheme != "sha256":
        return DealReport(scheme)
    checks = []
    for hand in record.get("hands") or []:
        check = check_hand(hand)
        seen = (commitments or {}).get(check.number)
        if seen is not None and seen != hand.get("deal_commitment"):
            problems = (*check.problems, "the commitment differs from the one shown during play")
            check = HandCheck(check.number, False, problems, check.skipped)
        checks.append(check)
    return DealReport(scheme, tuple(checks))
