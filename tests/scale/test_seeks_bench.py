"""The quick pairing benchmark's short version (``python -m server.bench seeks`` with 40
seekers): two server processes on Postgres (one on SQLite when Postgres is unreachable), every
seeker told ``paired`` once, every match with exactly two of them, nobody left seeking."""

from __future__ import annotations

import pytest

from server.bench import seeks

from .conftest import ADMIN_DSN

pytestmark = pytest.mark.slow


async def test_forty_seekers_on_two_replicas_each_end_in_exactly_one_match(tmp_path):
    report = await seeks.run(40, 100.0, "auto", ADMIN_DSN, 60.0, tmp_path, pools=2)
    assert report["ok"], seeks.format_report(report)
    assert report["matches"] == 20 and report["unpaired"] == 0 and report["left_seeking"] == 0
    assert report["pairing_once_partner_exists"]["count"] == 40
    assert "every seeker in exactly one match: yes" in seeks.format_report(report)
