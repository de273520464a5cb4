"""Where the service's ids and secrets come from: match and player ids, tokens, seeds and
invite codes.

:class:`SecretIds` is the real source (the ``secrets`` module: tokens and seeds are
unguessable, and a seed never comes from the clock). :class:`SequentialIds` numbers them, for
tests that want the same ids (and deals) every run; its tokens are guessable, so it must never
serve players.
"""

from __future__ import annotations

import itertools
import secrets
import string
from typing import Protocol

# A secret a person pastes on a command line (a token, a watch token, an invite code) must not
# begin with '-', or argparse (and getopt) read it as an option: about 1 in 64 base64url draws
# did. Its first character is drawn apart from letters and digits, in front of the whole draw,
# so nothing is lost (``nbytes`` of randomness plus log2(62) bits).
_FIRST = string.ascii_letters + string.digits


def _pasteable_secret(nbytes: int) -> str:
    """A URL-safe secret of ``nbytes`` random bytes and a little more, never beginning with
    '-'."""
    return secrets.choice(_FIRST) + secrets.token_urlsafe(nbytes)


class Ids(Protocol):
    def match_id(self) -> str: ...
    def player_id(self) -> str: ...
    def token(self) -> str:
        """A player's or a match's watch token (secret: only its hash is stored)."""
        ...

    def seed(self) -> str:
        """A match's seed: it decides every deal."""
        ...

    def invite(self) -> str: ...
    def seek_id(self) -> str: ...


class SecretIds:
    def match_id(self) -> str:
        return "m_" + secrets.token_urlsafe(12)

    def player_id(self) -> str:
        return "p_" + secrets.token_hex(8)

    def token(self) -> str:
        return _pasteable_secret(32)

    def seed(self) -> str:
        return secrets.token_hex(16)

    def invite(self) -> str:
        return _pasteable_secret(12)

    def seek_id(self) -> str:
        return "k_" + secrets.token_hex(8)


class SequentialIds:
    """``m_1``, ``p_2``, ``token-3``, ``seed-4``, ``invite-5``... one counter for all, prefixed
    by ``prefix`` (two sources on one store need different prefixes)."""

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix
        self._n = itertools.count(1)

    def _next(self, kind: str) -> str:
        return f"{kind}{self.prefix}{next(self._n)}"

    def match_id(self) -> str:
        return self._next("m_")

    def player_id(self) -> str:
        return self._next("p_")

    def token(self) -> str:
        return self._next("token-")

    def seed(self) -> str:
        return self._next("seed-")

    def invite(self) -> str:
        return self._next("invite-")

    def seek_id(self) -> str:
        return self._next("k_")
