"""The README and the documents link only to files inside the repository, and every link lands:
the file exists, and a ``#fragment`` names one of its headings (GitHub's anchors)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.

    >>> anchor("Against a MARJJ-style opponent (issue 17)")
    'against-a-marjj-style-opponent-issue-17'
    >>> anchor("Beside boardgame.io")
    'beside-boardgameio'
    """
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", path.read_text()).splitlines():
        if m := re.match(r"#{1,6} (.+)", line):
            base = anchor(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", path.read_text()))


@pytest.mark.parametrize("doc", DOCUMENTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_link_lands_inside_the_repository(doc: Path) -> None:
    bad = []
    for target in links(doc):
        if re.match(r"[a-z]+:", target):
            bad.append(f"{target}: outside the repository")
            continue
        file, _, fragment = target.partition("#")
        where = (doc.parent / file).resolve() if file else doc
        if not where.is_relative_to(ROOT) or not where.exists():
            bad.append(f"{target}: no such file")
        elif fragment and where.suffix == ".md" and fragment not in anchors(where):
            bad.append(f"{target}: no heading #{fragment} in {where.name}")
    assert not bad, f"{doc.name}: " + "; ".join(bad)


def test_the_checker_sees_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# One\n\n[ok](#one) [bad](#two) [gone](b.md)\n")
    found = links(tmp_path / "a.md")
    assert found == ["#one", "#two", "b.md"]
    assert anchors(tmp_path / "a.md") == {"one"}
