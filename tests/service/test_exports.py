"""The exports part: a player's finished matches page by page, each once even when a match
finishing meanwhile shifts the pages."""

from __future__ import annotations

from server.service import MatchService
from server.service import exports as exports_module
from server.storage import MemoryStore


async def test_a_match_finishing_during_an_export_shifts_no_match_into_it_twice(monkeypatch):
    monkeypatch.setattr(exports_module, "EXPORT_PAGE", 2)
    store = MemoryStore()
    service = MatchService(store, bot_delay=0)
    ada, _ = await service.create_player("Ada")
    finished = []
    for _ in range(4):
        created = await service.create_match(ada)
        await service.resign(ada, created.meta.match_id)
        finished.append(created.meta.match_id)
    newest = await service.create_match(ada)  # in play while the export starts
    seen = []
    async for rec in service.exports.export_all(ada, ada.player_id):
        seen.append(rec.meta.match_id)
        if len(seen) == 1:
            # Newer than every listed match, it joins the list ahead of the page already read.
            await service.resign(ada, newest.meta.match_id)
    assert seen == finished[::-1]
    await service.close()
