"""``python -m server.bench paint``: how soon the browser client paints, and whether it moves.

Loopback only. It starts one server (SQLite in a temporary folder, no computer pause), opens the
start page and then the table of a new match against the computer in Debian's Chromium through
Playwright (a test dependency: ``pip install -e ".[test]"``), and prints, for each page, the first
contentful paint (the Paint Timing API) and, for the table, when the hand was first drawn. Then it
plays ``--turns`` turns as a person taps (select a card, select another, draw, discard) and
prints the cumulative layout shift (CLS, shifts without recent input: what the metric counts)
and every shift's total (even those just after a tap), during the selections and over the whole
hand. ``tests/web/test_paint.py`` holds selecting cards to no layout shift at all.

Phone (390x844, touch) by default; ``--desktop`` for 1280x800. ``--rtt MS`` adds that much
latency to every request (Chromium's network emulation), as a phone's connection would;
``--compare`` also times the page as its files lie on disk (``/index.html``: a stylesheet per
file, modules found import by import) beside the page as served (``/``: one joined stylesheet,
every module preloaded; ``server/transport/page.py``), loads interleaved.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from server.bench import load

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

SHIFTS = """
window.__shifts = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const sources = (e.sources || []).map((s) => {
      const n = s.node;
      const name = n ? (n.id ? `#${n.id}` : `${n.nodeName.toLowerCase()}.${n.className || ""}`) : "?";
      return `${name} ${Math.round(s.previousRect.y)}->${Math.round(s.currentRect.y)} h${Math.round(s.previousRect.height)}->${Math.round(s.currentRect.height)}`;
    });
    window.__shifts.push({ value: e.value, input: e.hadRecentInput, at: e.startTime, sources });
  }
}).observe({ type: "layout-shift", buffered: true });
window.__handAt = null;
new MutationObserver(() => {
  if (window.__handAt === null && document.querySelector("button.hand-card")) window.__handAt = performance.now();
}).observe(document, { childList: true, subtree: true });
"""
"""An init script: every layout shift into ``window.__shifts``, and when the hand first shows."""

FCP = "() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null"


def shifts_since(page: Any, mark: float) -> tuple[float, float]:
    """(CLS, every shift's total) of the layout shifts after ``performance.now()`` was ``mark``."""
    entries = page.evaluate("m => window.__shifts.filter(e => e.at >= m)", mark)
    return sum(e["value"] for e in entries if not e["input"]), sum(e["value"] for e in entries)


def now(page: Any) -> float:
    return float(page.evaluate("performance.now()"))


def post(base: str, path: str, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    req = urllib.request.Request(base + path, json.dumps(body).encode(), headers, method="POST")
    with urllib.request.urlopen(req, timeout=10) as r:
        result: dict[str, Any] = json.loads(r.read())
        return result


def turn(page: Any, touch: bool) -> dict[str, float] | None:
    """One turn as a person plays it; the layout shifts of its selections and of the whole turn."""

    def act(locator: Any) -> None:
        if touch:
            locator.tap(timeout=5000)
        else:
            locator.click(timeout=5000)

    status = page.locator("#status-line")
    status.filter(has_text=re.compile("Your turn")).wait_for(timeout=20000)
    start = now(page)
    if "take the upcard or pass" in status.inner_text():
        act(page.get_by_role("button", name="Pass", exact=True))
        status.filter(has_text=re.compile("Your turn: draw")).wait_for(timeout=20000)
    act(page.get_by_role("button", name=re.compile(r"^Stock, \d+ cards$")))
    status.filter(has_text=re.compile("Your turn: discard")).wait_for(timeout=20000)
    page.wait_for_timeout(400)  # the drawn card has landed
    mark = now(page)
    cards = page.locator("button.hand-card")
    for i in (0, 3, 6, 9):
        act(cards.nth(i))
        page.wait_for_timeout(150)
    selecting = shifts_since(page, mark)
    act(cards.nth(9))  # the second tap on the selected card discards it
    page.locator("#status-line").filter(has_text=re.compile("^(?!Your turn: discard)")).wait_for(
        timeout=20000
    )
    if page.get_by_role("dialog").is_visible():
        return None  # the hand ended (a knock or the stock ran out)
    whole = shifts_since(page, start)
    return {
        "select_cls": selecting[0],
        "select_all": selecting[1],
        "turn_cls": whole[0],
        "turn_all": whole[1],
    }


def run(base: str, *, turns: int, desktop: bool, rtt: float = 0, entry: str = "/") -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    options: dict[str, Any] = (
        {"viewport": {"width": 1280, "height": 800}}
        if desktop
        else {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
    )
    player = post(base, "/api/players", {"name": "Bench"})
    match = post(base, "/api/matches", {"opponent": "computer", "difficulty": "easy"}, player["token"])
    out: dict[str, Any] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        context = browser.new_context(**options)
        context.add_init_script(SHIFTS)

        def new_page() -> Any:
            page = context.new_page()
            if rtt:
                cdp = context.new_cdp_session(page)
                cdp.send("Network.enable")
                conditions = {
                    "offline": False,
                    "latency": rtt,
                    "downloadThroughput": -1,
                    "uploadThroughput": -1,
                }
                cdp.send("Network.emulateNetworkConditions", conditions)
            return page

        page = new_page()
        page.goto(base + entry)
        page.get_by_role("heading", level=1).first.wait_for()
        out["start_fcp_ms"] = page.evaluate(FCP)
        again = new_page()  # a second visit: the same browser, its cache warm
        again.goto(base + entry)
        again.get_by_role("heading", level=1).first.wait_for()
        out["again_fcp_ms"] = again.evaluate(FCP)
        again.close()
        page.evaluate("p => localStorage.setItem('ginrummy.player', JSON.stringify(p))", player)
        table = new_page()
        table.goto(f"{base}{entry}#/play/{match['match_id']}")
        table.locator("button.hand-card").first.wait_for()
        out["table_fcp_ms"] = table.evaluate(FCP)
        out["table_hand_ms"] = table.evaluate("window.__handAt")
        played = [t for t in (turn(table, not desktop) for _ in range(turns)) if t is not None]
        for key in ("select_cls", "select_all", "turn_cls", "turn_all"):
            out[key] = max((t[key] for t in played), default=None)
        out["turns"] = len(played)
        browser.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m server.bench paint", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--turns", type=int, default=3, help="turns to play on the table (default 3)")
    parser.add_argument("--runs", type=int, default=3, help="fresh page loads to time (default 3)")
    parser.add_argument("--desktop", action="store_true", help="1280x800 instead of a 390x844 phone")
    parser.add_argument("--rtt", type=float, default=0, help="milliseconds of latency added to every request")
    parser.add_argument("--compare", action="store_true", help="also time the page as its files lie on disk")
    args = parser.parse_args(argv)
    entries = {"/": "as served"} | ({"/index.html": "files as on disk"} if args.compare else {})
    with tempfile.TemporaryDirectory() as tmp:
        server = load.start_server(
            f"sqlite+aiosqlite:///{Path(tmp) / 'paint.db'}", Path(tmp), {"GINRUMMY_BOT_DELAY": "0"}
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    with urllib.request.urlopen(server.url + "/healthz", timeout=1) as r:
                        if r.status == 200:
                            break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            results: dict[str, list[dict[str, Any]]] = {entry: [] for entry in entries}
            for i in range(args.runs):
                for entry in entries:
                    turns = args.turns if i == 0 and entry == "/" else 0
                    results[entry].append(
                        run(server.url, turns=turns, desktop=args.desktop, rtt=args.rtt, entry=entry)
                    )
        finally:
            load.stop_server(server)
    first = results["/"][0]
    print(f"added latency per request: {args.rtt:.0f} ms; {'desktop' if args.desktop else 'phone'}")
    for entry, name in entries.items():
        for key, label in (
            ("start_fcp_ms", "start page, first contentful paint"),
            ("again_fcp_ms", "start page again, cache warm"),
            ("table_fcp_ms", "table, first contentful paint"),
            ("table_hand_ms", "table, hand drawn"),
        ):
            values = [r[key] for r in results[entry] if r[key] is not None]
            print(
                f"{name:17s} {label:36s} median {statistics.median(values):7.0f} ms   "
                f"max {max(values):7.0f} ms   ({len(values)} loads)"
            )
    print(
        f"{'CLS while selecting cards':40s} {first['select_cls']!s:>7}   (every shift, even just after a tap: {first['select_all']})"
    )
    print(
        f"{'CLS over a turn (draw, select, discard)':40s} {first['turn_cls']!s:>7}   (every shift: {first['turn_all']}; {first['turns']} turns)"
    )
    return 0
