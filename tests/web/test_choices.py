"""The start page offers what the server offers: every rule preset of ``GET /api/rules`` and
every difficulty of ``GET /api/difficulties``, in the server's order and with its labels and
descriptions, and nothing the server does not list."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from playwright.sync_api import Page, Route, expect

from .conftest import DESKTOP, PHONE

pytestmark = pytest.mark.browser


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)


def offered(page: Page, form: str, legend: str) -> list[dict[str, str]]:
    """The radio buttons under ``legend`` in ``form``: value, label and note, in page order."""
    fieldset = page.get_by_role("form", name=form).get_by_role("group", name=legend)
    expect(fieldset.get_by_role("radio").first).to_be_attached()
    return fieldset.locator("label.choice").evaluate_all(
        """els => els.map(el => ({
            name: el.querySelector("input").value,
            label: el.querySelector("strong").textContent,
            description: el.querySelector(".note")?.textContent ?? "",
        }))"""
    )


def entries(items: list[dict]) -> list[dict[str, str]]:
    return [{"name": x["name"], "label": x["label"], "description": x.get("description", "")} for x in items]


def test_the_start_page_offers_exactly_the_servers_presets_and_difficulties(server, new_page):
    rules = get_json(server + "/api/rules")["rules"]
    difficulties = get_json(server + "/api/difficulties")["difficulties"]
    assert len(rules) >= 2 and len(difficulties) >= 3  # the answer itself is not empty
    page = new_page(**PHONE)
    page.goto(server + "/")
    assert offered(page, "Play the computer", "Difficulty") == entries(difficulties)
    assert offered(page, "Play the computer", "Rules") == entries(rules)
    assert offered(page, "Play a friend", "Rules") == entries(rules)
    # Every choice can be picked by its label, the way a player (and the other tests) find it.
    for d in difficulties:
        page.get_by_role("form", name="Play the computer").get_by_label(d["label"]).check()
    for r in rules:
        page.get_by_role("form", name="Play a friend").get_by_label(r["label"]).check()


def test_a_preset_and_a_difficulty_the_client_never_heard_of_are_offered_and_sent(server, new_page, console):
    # The server's answers with one more entry each: the page must show them without knowing
    # them in advance, and send the chosen names to the server.
    rules = get_json(server + "/api/rules")
    rules["rules"].append(
        {**rules["rules"][0], "name": "zz-test", "label": "Test rules", "description": "Made up."}
    )
    difficulties = get_json(server + "/api/difficulties")
    difficulties["difficulties"].append(
        {"name": "zz-bot", "label": "Test bot", "description": "Also made up."}
    )
    page = new_page(**DESKTOP)
    page.route("**/api/rules", lambda route: route.fulfill(json=rules))
    page.route("**/api/difficulties", lambda route: route.fulfill(json=difficulties))
    sent: list[dict] = []

    def capture(route: Route) -> None:
        if route.request.method == "POST":
            sent.append(route.request.post_data_json)
            route.fulfill(status=400, json={"error": {"code": "bad_request", "message": "No such preset."}})
        else:
            route.continue_()

    page.route("**/api/matches", capture)
    console.allow(r"status of 400 \(Bad Request\)")  # Chromium's own report of the refusal above
    page.goto(server + "/")
    assert offered(page, "Play the computer", "Rules") == entries(rules["rules"])
    assert offered(page, "Play the computer", "Difficulty") == entries(difficulties["difficulties"])
    page.get_by_label("Your name").fill("Ada")
    form = page.get_by_role("form", name="Play the computer")
    form.get_by_label("Test bot").check()
    form.get_by_label("Test rules").check()
    form.get_by_role("button", name="Play the computer").click()
    expect(page.get_by_role("alert")).to_have_text("No such preset.")
    assert sent == [{"opponent": "computer", "difficulty": "zz-bot", "rules": "zz-test"}]


def test_the_rules_page_describes_the_servers_presets_and_levels(server, new_page):
    rules = get_json(server + "/api/rules")["rules"]
    difficulties = get_json(server + "/api/difficulties")["difficulties"]
    page = new_page(**PHONE)
    page.goto(server + "/#/rules")
    presets = page.locator("dl.presets")
    expect(presets.locator("dt")).to_have_text([r["label"] for r in rules])
    expect(presets.locator("dd")).to_have_text([r["description"] for r in rules])
    levels = page.get_by_role("listitem").filter(has_text="The computer's levels:").get_by_role("listitem")
    expect(levels).to_have_text([f"{d['label']} \u2014 {d['description']}" for d in difficulties])


def test_the_live_counts_arriving_late_move_no_start_choice(server, new_page):
    """The start page's counts (open challenges, players) come from their own request: answered
    after the choices are shown, they must not push the choices down under a finger (a tap
    meant for one difficulty landing on another)."""
    for device in (PHONE, DESKTOP):
        counts_arrive_after_the_choices(new_page(**device), server)


def counts_arrive_after_the_choices(page: Page, server: str) -> None:
    held: list[Route] = []
    page.route("**/api/lobby", lambda route: held.append(route))
    page.goto(server + "/")
    easy = page.get_by_role("form", name="Play the computer").get_by_label("Easy")
    expect(easy).to_be_visible()
    expect(page.locator(".live-counts")).to_contain_text("playing now")  # (a dash for now)
    before = easy.bounding_box()
    for _ in range(50):  # (until the request has reached the handler)
        if held:
            break
        page.wait_for_timeout(20)
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator(".live-counts")).to_contain_text(re.compile(r"\d+ playing now"))
    assert easy.bounding_box() == before
