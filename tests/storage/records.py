"""Records for storage tests: players and matches with random ids, written to a store."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from server.service.ports import MatchMeta, PlayerRecord, Store, StoredAction


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


async def make_player(store: Store, name: str = "Ada") -> PlayerRecord:
    player = PlayerRecord("p_" + secrets.token_hex(8), name, secrets.token_hex(32), now())
    await store.create_player(player)
    return player


async def make_match(store: Store, player: PlayerRecord, **changes) -> MatchMeta:
    meta = MatchMeta(
        match_id="m_" + secrets.token_hex(8),
        rules="house",
        opponent="computer",
        difficulty="normal",
        seed=secrets.token_hex(16),
        first_starter=0,
        status="active",
        version=0,
        seat_ids=[player.player_id, None],
        seat_names=[player.name, None],
        watch_token_hash=secrets.token_hex(32),
        invite_hash=None,
        hand_number=1,
        scores=[0, 0],
        hands_won=[0, 0],
        winner=None,
        resigned=None,
        outcome=None,
        created_at=now(),
        updated_at=now(),
    )
    for key, value in changes.items():
        setattr(meta, key, value)
    await store.create_match(meta)
    return meta


def pass_action(seq: int, version: int, client_id: str | None = None, seat: int = 0) -> StoredAction:
    """The ``seq``-th action of a match, a pass, leading to ``version``."""
    return StoredAction(seq, seat, {"kind": "pass"}, client_id, version, now())


def next_version(meta: MatchMeta, **changes) -> MatchMeta:
    """The match row one version later, with ``changes``."""
    new = meta.copy()
    new.version += 1
    for key, value in changes.items():
        setattr(new, key, value)
    return new
