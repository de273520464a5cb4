"""Verifiable deals in the browser: the match's hands page and its replay check the record's
deals in the page itself (Web Crypto) and say "Deal verified"; a hand left unfinished by a
resignation says its deal was not revealed, and a record whose deal was tampered with says
"Deal NOT verified". At a phone's size and a desktop's."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from typing import Any

import pytest
from ginrummy_client import GinRummyClient
from ginrummy_client.strategies import quick
from playwright.sync_api import expect

from tests.live_server import live_server

from .conftest import DESKTOP, PHONE
from .table import shot

pytestmark = pytest.mark.browser


def finished_match(server: str, hands: int = 2) -> tuple[dict[str, Any], str]:
    """A player who played ``hands - 1`` whole hands against the computer (through the Python
    client), then resigned in hand ``hands``: (the player as the browser stores it, match id)."""
    out: dict[str, Any] = {}

    async def run() -> None:
        client = GinRummyClient(server)
        me = await client.create_player("Ada")
        ticket = await client.create_match(difficulty="easy")
        async with client.connect(ticket) as conn:
            while (view := await conn.turn(timeout=30)) is not None and view.hand_number < hands:
                await conn.act(quick(view), version=view.version)
        await client.resign(ticket.match_id)
        out["player"] = {"player_id": me.player_id, "name": me.name, "token": me.token}
        out["match_id"] = ticket.match_id

    # The Python client is async; Playwright's sync API owns this thread's event loop.
    thread = threading.Thread(target=lambda: asyncio.run(run()))
    thread.start()
    thread.join(90)
    assert "match_id" in out, "the match did not finish"
    return out["player"], out["match_id"]


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Any:
    """One server and one match for every test here: (base URL, player, match id)."""
    with live_server(tmp_path_factory.mktemp("deals")) as url:
        yield (url, *finished_match(url))


def as_player(page, server: str, player: dict[str, Any]) -> None:
    page.goto(server + "/")
    page.evaluate("p => localStorage.setItem('ginrummy.player', JSON.stringify(p))", player)


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_the_hands_page_and_the_replay_say_the_deal_was_verified(played, new_page, size):
    server, player, match_id = played
    page = new_page(**(PHONE if size == "phone" else DESKTOP))
    as_player(page, server, player)

    page.goto(f"{server}/#/history/{match_id}")
    badge = page.locator(".deal-badge")
    expect(badge).to_have_text("\u2713 Deal verified: 1 hand re-derived from its seed in this browser")
    expect(badge).to_have_attribute("data-deal", "verified")
    shot(page, f"deals-history-{size}")

    page.get_by_role("link", name="Replay this match").click()
    expect(page.get_by_text(re.compile(r"^Hand 1 of 1 \u00b7 move 0 of"))).to_be_visible()
    expect(badge).to_have_text("\u2713 Deal verified: hand 1 re-derived from its seed in this browser")
    # Hand 2, cut short by the resignation, is not replayed: its hidden cards stay hidden.
    expect(page.locator(".replay-unfinished")).to_be_visible()
    shot(page, f"deals-replay-{size}")


def test_a_tampered_record_is_not_verified(played, new_page):
    server, player, match_id = played
    page = new_page(**PHONE)

    def tamper(route) -> None:
        record = json.loads(route.fetch().text())
        stock = record["hands"][0]["stock"]
        stock[0], stock[1] = stock[1], stock[0]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(record))

    page.route(re.compile(r".*/api/matches/[^/]+/record$"), tamper)
    as_player(page, server, player)
    page.goto(f"{server}/#/replay/{match_id}")
    badge = page.locator(".deal-badge")
    expect(badge).to_have_text("\u2717 Deal NOT verified: the stock is not the one dealt")
    expect(badge).to_have_attribute("data-deal", "failed")
    shot(page, "deals-replay-tampered-phone")


def test_the_browser_keeps_the_commitments_it_was_shown_and_checks_the_record_against_them(played, new_page):
    server, player, match_id = played
    page = new_page(**DESKTOP)
    as_player(page, server, player)
    # The table of the (finished) match shows its last view: the browser notes hand 2's commitment.
    page.goto(f"{server}/#/play/{match_id}")
    expect(page.get_by_role("heading", name="Match over")).to_be_visible()
    seen = page.evaluate("id => JSON.parse(localStorage.getItem('ginrummy.deals'))[id]", match_id)
    record = page.evaluate(
        "async ([id, token]) => (await fetch(`/api/matches/${id}/record`,"
        " {headers: {Authorization: `Bearer ${token}`}})).json()",
        [match_id, player["token"]],
    )
    assert seen == {"2": record["hands"][1]["deal_commitment"]}

    # A record whose commitment is not the one this browser was shown is not verified.
    page.evaluate(
        "([id, c]) => localStorage.setItem('ginrummy.deals', JSON.stringify({[id]: {1: c}}))",
        [match_id, "0" * 64],
    )
    page.goto(f"{server}/#/replay/{match_id}")
    expect(page.locator(".deal-badge")).to_have_text(
        "\u2717 Deal NOT verified: the commitment differs from the one shown during play"
    )
