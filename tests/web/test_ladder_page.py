"""The bot ladder in the browser (#/ladder), at 390x844 (a phone, by touch) and 1280x800: the
menu leads there; the references (here Easy and Normal, playing each other within the CPU
budget) and an enrolled bot are ranked with their error bars and marked as references or a
bot; choosing an entrant shows its paired result with a 95% interval and its recent pairs; the
bot's own page says it is a bot, and so does the table of a person who invited it."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.live_server import live_server

from .conftest import DESKTOP, PHONE
from .table import shot
from .test_ratings_pages import rest

pytestmark = pytest.mark.browser
SHOTS = Path("/tmp/shots/ladder")


def test_the_ladder_page_ranks_bots_and_references_with_paired_results(tmp_path, new_page):
    env = {
        "GINRUMMY_LADDER_CPU": "1",
        "GINRUMMY_LADDER_REFERENCES": "easy,normal",
        "GINRUMMY_BOT_WORKERS": "0",
    }
    with live_server(tmp_path, extra_env=env) as server:
        deadline = time.monotonic() + 60
        while not any(e["games"] for e in rest(server, "GET", "/api/ladder")["entrants"]):
            assert time.monotonic() < deadline, "no ladder pair finished within a minute"
            time.sleep(0.2)
        robo = rest(
            server, "POST", "/api/players", body={"name": "Robo", "bot": {"owner": "ada@example.org"}}
        )
        rest(server, "POST", "/api/ladder/entries", robo["token"])

        desk = new_page(**DESKTOP)
        desk.goto(server + "/")
        desk.get_by_role("navigation", name="Main").get_by_role("link", name="Ladder").click()
        expect(desk.get_by_role("heading", name="Bot ladder")).to_be_visible()
        rows = desk.locator(".ladder tbody tr")
        expect(rows).to_have_count(3)
        expect(desk.get_by_role("status")).to_contain_text("3 entrants")
        robo_row = rows.filter(has_text="Robo")
        expect(robo_row).to_contain_text("Bot")
        expect(robo_row).to_contain_text("1500 \u00b1 700")
        expect(rows.filter(has_text="Easy")).to_contain_text("Reference")
        desk.get_by_role("button", name="Normal").click()
        detail = desk.locator(".ladder-detail")
        expect(detail.get_by_role("heading", name=re.compile("Normal"))).to_be_visible()
        expect(detail.locator("tbody tr").filter(has_text="Easy")).to_contain_text(
            re.compile(r"\d+% \(0%\u2013100%\)")
        )
        expect(detail.locator(".ladder-pairs li").first).to_contain_text("vs Easy")
        SHOTS.mkdir(parents=True, exist_ok=True)
        desk.screenshot(path=str(SHOTS / "ladder-desktop.png"), full_page=True)
        shot(desk, "ladder-desktop")

        phone = new_page(**PHONE)
        phone.goto(server + "/#/ladder")
        expect(phone.locator(".ladder tbody tr")).to_have_count(3)
        phone.get_by_role("button", name="Easy").tap()
        expect(phone.locator(".ladder-detail tbody tr").filter(has_text="Normal")).to_be_visible()
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the phone page is {width} px wide"
        phone.screenshot(path=str(SHOTS / "ladder-phone.png"), full_page=True)
        shot(phone, "ladder-phone")

        phone.goto(server + f"/#/player/{robo['player_id']}")
        expect(phone.get_by_role("heading", name=re.compile("Robo"))).to_contain_text("Bot")
        expect(phone.get_by_text("A program, run by ada@example.org.")).to_be_visible()
        phone.screenshot(path=str(SHOTS / "player-bot-phone.png"), full_page=True)

        # A person who invites the bot (choosing it) sees it marked at the table.
        ada = new_page(**DESKTOP)
        ada.goto(server + "/")
        ada.get_by_label("Your name").fill("Ada")
        ada.get_by_role("button", name="Create an invite link").click()
        invite = ada.get_by_label("Invite link for your friend").input_value()
        match_id, code = invite.split("#/join/")[1].split("/")
        rest(server, "POST", f"/api/matches/{match_id}/join", robo["token"], {"invite": code})
        expect(ada.get_by_role("heading", name=re.compile("^Robo"))).to_contain_text("Bot")
        ada.screenshot(path=str(SHOTS / "table-bot-desktop.png"), full_page=True)
        shot(ada, "ladder-table-bot-desktop")
        ada.close()  # (before this test's server stops: its socket would try to reconnect)
