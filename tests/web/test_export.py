"""History people use: the server-side filters on the history page, exporting a match in the
text notation, importing that file on the replay page and stepping through it by keyboard."""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as dt
import json
import re
import shutil
from pathlib import Path

import pytest
from ginrummy_client import GinRummyClient
from ginrummy_client.arena import run_arena
from ginrummy_client.strategies import quick
from playwright.sync_api import expect

from .conftest import DESKTOP, PHONE
from .table import ARTIFACTS, shot

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/shots/export")


async def _matches(base_url: str) -> tuple[dict[str, str], str]:
    """Ada's three finished matches: a whole one against the computer, a classic one she
    resigned, and one against Bob, who resigned. Her identity and the whole match's id."""
    ada, bob = GinRummyClient(base_url), GinRummyClient(base_url)
    me = await ada.create_player("Ada")
    await bob.create_player("Bob")
    await run_arena(base_url, quick, difficulty="easy", matches=1, token=me.token, write=lambda _: None)
    (whole,), _ = await ada.list_matches(status="finished")
    resigned = await ada.create_match(rules="classic")
    await ada.resign(resigned.match_id)
    friendly = await ada.create_match(opponent="human")
    assert friendly.invite is not None
    await bob.join_match(friendly.match_id, friendly.invite.code)
    await bob.resign(friendly.match_id)
    return {"player_id": me.player_id, "name": me.name, "token": me.token}, whole.match_id


def _keep(name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(ARTIFACTS / f"{name}.png", SHOTS / f"{name}.png")


def test_history_filters_export_import_and_keyboard_replay(server, new_page, console):
    # In a thread of its own: Playwright's sync API already runs an event loop in this one.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        player, whole_id = pool.submit(asyncio.run, _matches(server)).result()
    page = new_page(**DESKTOP)
    page.goto(server + "/")
    page.evaluate("p => localStorage.setItem('ginrummy.player', JSON.stringify(p))", player)
    page.goto(server + "/#/history")
    status = page.locator(".history > p[role=status]")
    expect(status).to_have_text("3 finished matches")
    rows = page.locator(".history-list li")

    # Each filter asks the server again; they combine.
    page.get_by_label("Rules").select_option("classic")
    expect(status).to_have_text("1 finished match with these filters")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("You lost")
    page.get_by_label("Rules").select_option("")
    page.get_by_label("Opponent").select_option("human")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Against Bob")
    page.get_by_label("Result").select_option("lost")
    expect(status).to_have_text("No finished match with these filters.")
    page.get_by_label("Opponent").select_option("")
    expect(rows.first).to_contain_text("You lost")
    page.get_by_label("Result").select_option("")
    today = dt.datetime.now(dt.UTC).date()
    page.get_by_label("To").fill(str(today - dt.timedelta(days=1)))
    expect(status).to_have_text("No finished match with these filters.")
    page.get_by_label("From").fill(str(today))
    expect(status).to_contain_text("\u201cFrom\u201d is later than \u201cTo\u201d")
    expect(rows).to_have_count(0)
    page.get_by_label("To").fill(str(today))
    expect(status).to_have_text("3 finished matches with these filters")
    shot(page, "export-history-filters")
    _keep("export-history-filters")

    # The whole match's hands page exports it in the text notation.
    page.goto(server + f"/#/history/{whole_id}")
    with page.expect_download() as download:
        page.get_by_role("button", name="Export this match in the text notation").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert download.value.suggested_filename == f"{whole_id}.txt"
    assert text.startswith('[game "Gin Rummy"]\n')
    hands = len(re.findall(r'^\[hand "', text, re.M))
    assert hands >= 2
    expect(page.get_by_role("status").filter(has_text="Saved")).to_have_text(f"Saved {whole_id}.txt.")
    shot(page, "export-hands")
    _keep("export-hands")

    # The replay page reads a bad file and says where it is wrong; then the good one, pasted.
    page.goto(server + "/#/replay")
    expect(page.get_by_role("heading", name="Replay an exported match")).to_be_visible()
    page.get_by_label("Or a file").set_input_files(
        {"name": "bad.txt", "mimeType": "text/plain", "buffer": b'[game "Chess"]\n'}
    )
    expect(page.get_by_role("alert")).to_contain_text("Could not read this match: line 1:")
    page.get_by_label("Match notation").fill(text)
    shot(page, "export-import")
    _keep("export-import")
    page.get_by_role("button", name="Replay it").click()
    position = page.locator(".replay-position")
    expect(position).to_contain_text(f"Hand 1 of {hands} \u00b7 move 0 of")
    total = int(re.search(r"move 0 of (\d+)", position.inner_text()).group(1))
    expect(page.get_by_role("group", name=re.compile(r"^You: ")).get_by_role("img")).to_have_count(10)

    # Keyboard: a move, the hand's end (its result), the next hand, back, play and pause.
    page.locator("body").press("ArrowRight")
    expect(position).to_contain_text(f"move 1 of {total}")
    page.keyboard.press("End")
    expect(position).to_contain_text(f"move {total} of {total}")
    expect(page.get_by_role("heading", name="Hand 1 result")).to_be_visible()
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_role("heading", name="Hand 1 result")).to_be_hidden()
    page.keyboard.press("PageDown")
    expect(position).to_contain_text(f"Hand 2 of {hands} \u00b7 move 0 of")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Home")
    expect(position).to_contain_text("Hand 2 of")
    expect(position).to_contain_text("move 0 of")
    page.keyboard.press("PageUp")
    expect(position).to_contain_text(f"Hand 1 of {hands} \u00b7 move 0 of")
    page.keyboard.press(" ")
    expect(page.get_by_role("button", name="Pause")).to_be_visible()
    expect(position).to_contain_text("move 1 of")
    page.keyboard.press(" ")
    expect(page.get_by_role("button", name="Play", exact=True)).to_be_visible()
    shot(page, "export-replay")
    _keep("export-replay")

    # On a phone the filters and the import form fit the screen.
    phone = new_page(**PHONE)
    phone.goto(server + "/")
    phone.evaluate("p => localStorage.setItem('ginrummy.player', JSON.stringify(p))", player)
    for route, name in (("#/history", "export-history-phone"), ("#/replay", "export-import-phone")):
        phone.goto(server + "/" + route)
        expect(phone.locator("h1")).to_be_visible()
        if route == "#/history":
            expect(phone.locator(".history > p[role=status]")).to_have_text("3 finished matches")
        width = phone.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 390, f"{route} is {width} px wide on a phone"
        shot(phone, name)
        _keep(name)
    assert json.loads(phone.evaluate("localStorage.getItem('ginrummy.player')"))["name"] == "Ada"
