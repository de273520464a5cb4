"""The table's pleasures (issue 16): cards that move (and stay still under reduced motion or
when the player turns motion off), the turn signal in a hidden tab, and the settings kept in the
browser (a four-colour deck). Scripted views (tests/web/scripted.py); one server per module."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .conftest import DESKTOP, PHONE
from .scripted import knock_chance_view, open_scripted, rest, view
from .table import menu_link

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/table-shots")

# Count the page's animations (Element.animate) and let the test hide the tab.
PAGE_HOOKS = """
window.__anims = 0;
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) { window.__anims += 1; return animate.apply(this, args); };
window.__visibility = "visible";
Object.defineProperty(document, "visibilityState", { get: () => window.__visibility });
Object.defineProperty(document, "hidden", { get: () => window.__visibility === "hidden" });
"""


def hooked(new_page, **options) -> Page:
    page = new_page(**options)
    page.add_init_script(PAGE_HOOKS)
    return page


def draw_then_discard(page: Page, site: str):
    script = open_scripted(page, site, view(), knock_chance_view())
    page.get_by_role("button", name=re.compile(r"^Stock")).click()
    expect(page.locator("#hand-hint")).to_contain_text("You can knock")
    return script


def test_a_drawn_card_slides_in_from_the_stock(site, new_page):
    page = hooked(new_page, **DESKTOP)
    draw_then_discard(page, site)
    assert page.evaluate("window.__anims") >= 1
    # The table is in the new state at once: the drawn card is in the hand while it moves.
    expect(page.get_by_role("button", name=re.compile(r"^king of diamonds, just drawn"))).to_be_visible()


def test_nothing_moves_under_reduced_motion(site, new_page):
    page = hooked(new_page, **PHONE, reduced_motion="reduce")
    draw_then_discard(page, site)
    assert page.evaluate("window.__anims") == 0


def test_the_computers_discard_lands_on_the_pile(site, new_page):
    page = hooked(new_page, **DESKTOP)
    waiting = view(
        status_line="Computer (Easy) is playing",
        hand={"to_act": 1, "legal_actions": [], "history": [{"seat": 0, "kind": "pass"}]},
    )
    script = open_scripted(page, site, waiting)
    expect(page.locator("#status-line")).to_have_text("Computer (Easy) is playing")
    after = copy.deepcopy(waiting)
    after["hand"]["history"] += [
        {"seat": 1, "kind": "draw", "source": "stock"},
        {"seat": 1, "kind": "discard", "card": "5h"},
    ]
    after["hand"]["discard_pile"] = ["Qs", "5h"]
    after["hand"]["to_act"] = 0
    after["hand"]["legal_actions"] = [
        {"kind": "draw", "source": "stock"},
        {"kind": "draw", "source": "discard"},
    ]
    after["status_line"] = "Your turn: draw from the stock or the discard pile"
    script.push(after)
    expect(page.get_by_role("button", name="Discard pile, top card 5 of hearts")).to_be_visible()
    assert page.evaluate("window.__anims") >= 1
    # The computer's move stays readable once the card has landed.
    expect(page.locator(".opponent-area .last-move")).to_have_text("Drew from the stock, then discarded 5♥")


def test_turning_motion_off_in_the_settings_keeps_the_cards_still(site, new_page):
    page = hooked(new_page, **DESKTOP)
    script = open_scripted(page, site, view(), knock_chance_view())
    page.get_by_text("Settings").click()
    page.get_by_label(re.compile("^Move the cards")).uncheck()
    page.get_by_role("button", name=re.compile(r"^Stock")).click()
    expect(page.locator("#hand-hint")).to_contain_text("You can knock")
    assert page.evaluate("window.__anims") == 0
    assert script.acts() == [{"kind": "draw", "source": "stock"}]


def test_a_hidden_tab_says_it_is_your_turn(site, new_page):
    page = hooked(new_page, **DESKTOP)
    waiting = view(status_line="Computer (Easy) is playing", hand={"to_act": 1, "legal_actions": []})
    script = open_scripted(page, site, waiting)
    expect(page.locator("#status-line")).to_have_text("Computer (Easy) is playing")
    page.evaluate(
        "() => { window.__visibility = 'hidden'; document.dispatchEvent(new Event('visibilitychange')); }"
    )
    expect(page).to_have_title("Gin Rummy")
    script.push(view())  # the computer moved: this player's turn
    expect(page).to_have_title("Your turn \u2014 Gin Rummy")
    assert page.locator("link[rel~='icon']").get_attribute("href").startswith("data:image/svg+xml")
    page.evaluate(
        "() => { window.__visibility = 'visible'; document.dispatchEvent(new Event('visibilitychange')); }"
    )
    expect(page).to_have_title("Gin Rummy")
    assert page.locator("link[rel~='icon']").get_attribute("href") == "favicon.svg"


def test_the_four_colour_deck_is_kept_after_a_reload(site, new_page):
    page = new_page(**PHONE)
    open_scripted(page, site, knock_chance_view())
    club = page.get_by_role("button", name=re.compile("^2 of clubs")).locator(".face")
    black = club.evaluate("e => getComputedStyle(e).color")
    page.get_by_text("Settings").tap()
    page.get_by_label(re.compile("^Four-colour deck")).check()
    expect(club).not_to_have_css("color", black)
    page.reload()
    club = page.get_by_role("button", name=re.compile("^2 of clubs")).locator(".face")
    expect(club).to_have_css("color", "rgb(27, 122, 52)")
    diamond = page.get_by_role("button", name=re.compile("^king of diamonds")).locator(".face")
    expect(diamond).to_have_css("color", "rgb(21, 101, 192)")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "four-colour-390.png"), full_page=True)


def test_the_record_page_counts_a_finished_match(site, new_page):
    ada = rest(site, "POST", "/api/players", {"name": "Ada"})
    m = rest(site, "POST", "/api/matches", {"opponent": "computer", "difficulty": "easy"}, ada["token"])
    rest(site, "POST", f"/api/matches/{m['match_id']}/resign", {}, ada["token"])
    page = new_page(**PHONE)
    page.add_init_script(f"localStorage.setItem('ginrummy.player', {json.dumps(json.dumps(ada))});")
    page.goto(site + "/")
    menu_link(page, "Record").tap()
    expect(page.get_by_role("heading", name="Your record")).to_be_visible()
    grid = page.locator(".stat-grid")
    expect(grid.locator(".stat").filter(has_text="Matches")).to_contain_text("1")
    expect(grid.locator(".stat").filter(has_text="Losses")).to_contain_text("1")
    expect(grid.locator(".stat").filter(has_text="Points per hand")).to_be_visible()
    expect(page.get_by_role("link", name=re.compile(r"^Lost against Computer"))).to_be_visible()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "record-390.png"), full_page=True)


def test_court_cards_show_a_figure_not_a_letter(site, new_page):
    page = new_page(**PHONE)
    cards = ["Kh", "Qs", "Jd", "Kc", "Qh", "Js", "2c", "3c", "4c", "As"]
    open_scripted(page, site, view(hand={"cards": cards, "melds": [["2c", "3c", "4c"]], "legal_actions": []}))
    for code, name in [("Kh", "king of hearts"), ("Qs", "queen of spades"), ("Jd", "jack of diamonds")]:
        pip = page.get_by_role("button", name=re.compile(f"^{name}")).locator(".pip")
        expect(pip.locator("svg.court-figure")).to_have_count(1)
        expect(pip).to_have_text(re.compile(r"^[\u2660\u2665\u2666\u2663]*$"))  # no "K" in a box
        assert code[0] in "KQJ"
    expect(page.locator(".hand-card .court-figure")).to_have_count(6)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".my-area").screenshot(path=str(SHOTS / "court-cards-390.png"))
