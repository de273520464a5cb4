"""Lighthouse (the npm package in tests/js, run headless on Debian's Chromium, no network) on the
start page and on the table of a player's own match: accessibility and best practices score at
least 95 on each. The two runs go side by side (about 15 s each).

The table needs the player's identity in the browser's storage: Playwright writes it into a
Chromium profile first, and Lighthouse runs on that profile without resetting storage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.transport.node import JS, need_node

from .conftest import CHROMIUM, LAUNCH_ARGS
from .scripted import rest

pytestmark = pytest.mark.browser

CATEGORIES = ("accessibility", "best-practices")
LEAST = 0.95
LIGHTHOUSE = JS / "node_modules" / "lighthouse" / "cli" / "index.js"


REMEMBER = """
import json, sys
from playwright.sync_api import sync_playwright
profile, site, player, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
with sync_playwright() as pw:
    context = pw.chromium.launch_persistent_context(profile, executable_path="/usr/bin/chromium", args=args)
    page = context.new_page()
    page.goto(site + "/")
    page.evaluate("p => localStorage.setItem('ginrummy.player', JSON.stringify(p))", player)
    context.close()
"""
"""Write the player's identity into a Chromium profile, as the browser client keeps it."""


def lighthouse(url: str, out: Path, profile: Path | None) -> subprocess.Popen[bytes]:
    flags = [*LAUNCH_ARGS, "--headless=new"]
    if profile is not None:
        flags.append(f"--user-data-dir={profile}")
    command = [
        need_node(),
        str(LIGHTHOUSE),
        url,
        f"--only-categories={','.join(CATEGORIES)}",
        "--output=json",
        f"--output-path={out}",
        f"--chrome-flags={' '.join(flags)}",
        "--quiet",
        "--disable-full-page-screenshot",
        *(["--disable-storage-reset"] if profile is not None else []),
    ]
    env = {**os.environ, "CHROME_PATH": str(CHROMIUM)}
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def failures(report: dict) -> list[str]:
    """The audits of the report's categories that did not pass, with their weight."""
    out = []
    for name in CATEGORIES:
        for ref in report["categories"][name]["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if audit.get("score") is not None and audit["score"] < 1:
                out.append(f"{name}: {ref['id']} (weight {ref['weight']}): {audit['title']}")
    return out


def test_lighthouse_scores_the_start_page_and_the_table_at_least_95(site, tmp_path):
    need_node()
    assert LIGHTHOUSE.is_file(), "lighthouse is missing: run npm ci --prefix tests/js"
    ada = rest(site, "POST", "/api/players", {"name": "Ada"})
    m = rest(site, "POST", "/api/matches", {"opponent": "computer", "difficulty": "easy"}, ada["token"])
    profile = tmp_path / "profile"
    # In a process of its own: this session's Playwright already runs an event loop here.
    subprocess.run(
        [sys.executable, "-c", REMEMBER, str(profile), site, json.dumps(ada), json.dumps(LAUNCH_ARGS)],
        check=True,
        timeout=60,
    )
    pages = {"start": (site + "/", None), "table": (f"{site}/#/play/{m['match_id']}", profile)}
    runs = {name: lighthouse(url, tmp_path / f"{name}.json", prof) for name, (url, prof) in pages.items()}
    for name, run in runs.items():
        _, err = run.communicate(timeout=180)
        assert run.returncode == 0, f"lighthouse on the {name} page failed: {err.decode()[-2000:]}"
    for name in pages:
        report = json.loads((tmp_path / f"{name}.json").read_text())
        if name == "table":  # it really audited the table, not the start page
            assert report["finalDisplayedUrl"].endswith(f"#/play/{m['match_id']}")
        scores = {c: report["categories"][c]["score"] for c in CATEGORIES}
        assert all(s is not None and s >= LEAST for s in scores.values()), (name, scores, failures(report))
