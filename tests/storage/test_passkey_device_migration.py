"""Migration 0010 adds ``passkeys.device``: a passkey registered before says "unknown device"
and still signs in (its key and count are kept); downgrade drops the column and keeps the row."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from server.storage import SqlStore, upgrade

from .databases import database
from .records import make_player, now
from .test_token_column_migration import downgrade


async def passkey_columns(engine) -> set[str]:
    async with engine.connect() as db:
        return await db.run_sync(lambda c: {col["name"] for col in sa.inspect(c).get_columns("passkeys")})


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def test_older_passkeys_say_unknown_device_and_downgrade_drops_the_column(kind, tmp_path):
    async with database(kind, tmp_path, "actions_lean") as engine:
        store = SqlStore(engine)
        ada = await make_player(store)
        async with engine.begin() as db:
            await db.execute(
                sa.text(
                    "INSERT INTO passkeys (credential_id, player_id, public_key, sign_count, created_at)"
                    " VALUES ('cred-old', :p, :k, 3, :t)"
                ),
                {"p": ada.player_id, "k": b"\x01\x02", "t": now()},
            )
        assert "device" not in await passkey_columns(engine)

        await upgrade(engine)
        (old,) = await store.passkeys_of(ada.player_id)
        assert (old.credential_id, old.public_key, old.sign_count, old.device) == (
            "cred-old",
            b"\x01\x02",
            3,
            "unknown device",
        )

        await downgrade(engine, "actions_lean")
        assert "device" not in await passkey_columns(engine)
        async with engine.connect() as db:
            left = (await db.execute(sa.text("SELECT credential_id FROM passkeys"))).scalars().all()
        assert left == ["cred-old"]
