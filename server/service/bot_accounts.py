"""Bot accounts: a player declared, when it is created, to be a program, with who runs it and
what it is. Declared once and for good (a player never becomes a bot, nor stops being one), and
shown wherever the player is.

The rule that keeps humans from meeting bots they did not choose: a bot never takes an open
challenge (``accept``), which anyone could post for people; it plays a human only through the
invite that human gave it (choosing it), and otherwise on the ladder, against bots.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from .account_ports import UNKNOWN_DEVICE
from .clock import Clock
from .errors import BadRequest, NotForBots
from .ladder_ports import BotRecord
from .players import Players
from .ports import PlayerRecord, Store

MAX_OWNER = 80
MAX_DESCRIPTION = 300


def _text(value: Any, field: str, most: int, *, empty: bool) -> str:
    if not isinstance(value, str):
        raise BadRequest(f"{field} must be a string")
    text = unicodedata.normalize("NFC", value).strip()
    if not text and not empty:
        raise BadRequest(f"{field} must not be empty")
    if len(text) > most:
        raise BadRequest(f"{field} must be at most {most} characters")
    if any(unicodedata.category(ch)[0] == "C" for ch in text):
        raise BadRequest(f"{field} must not contain control characters")
    return text


class BotAccounts:
    def __init__(self, store: Store, clock: Clock, players: Players) -> None:
        self.store = store
        self.clock = clock
        self.players = players

    async def create(
        self, name: Any, owner: Any, description: Any, device: str = UNKNOWN_DEVICE
    ) -> tuple[PlayerRecord, str, BotRecord]:
        """A new player that is a bot: its record, its token and its bot record."""
        owner = _text(owner, "owner", MAX_OWNER, empty=False)
        description = _text(
            description if description is not None else "", "description", MAX_DESCRIPTION, empty=True
        )
        player, token = await self.players.create(name, device)
        bot = BotRecord(player.player_id, owner, description, self.clock.now())
        await self.store.create_bot(bot)
        return player, token, bot

    async def bot(self, player_id: str) -> BotRecord | None:
        return await self.store.bot(player_id)

    async def bots(self, player_ids: list[str]) -> dict[str, BotRecord]:
        """The bot records of those of ``player_ids`` that are bots."""
        return await self.store.bots(player_ids)

    async def may_accept(self, player: PlayerRecord) -> None:
        """Refuse a bot taking an open challenge (meant for people)."""
        if await self.store.bot(player.player_id) is not None:
            raise NotForBots(
                "a bot does not take open challenges, which are for people: "
                "a human who wants to play your bot sends it the match's invite"
            )
