"""The browser client's page as served: ``index.html`` with its stylesheets joined into one
versioned file and its JavaScript modules announced up front.

Why: the client is plain files with no build step, one stylesheet per part of the page and one
module per idea. Served as they are, a phone over HTTP/1.1 pays a round trip per stylesheet
before the first paint, the module graph arrives one level of imports at a time, and every
later visit revalidates every file again. So the served page links one stylesheet (the files in
the page's own order) and a ``<link rel="modulepreload">`` for every module reachable from the
page's module scripts, so the browser asks for all of them at once; and it names them under
``v/VERSION/`` (a hash of the stylesheets and modules), so they are cached for a year and a
later visit asks only for the page. Relative imports resolve inside the same ``v/VERSION/``
folder, so no module's text is rewritten. The files on disk stay as they are (the page still
works served by any static file server), and a change to any of them shows on the next load, as
before: the page is rebuilt, with a new version, whenever one of its inputs changed on disk.

It only reads files inside the client's folder (a link or import leading outside is left
alone), and it never changes a file's text other than joining the stylesheets.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

STYLESHEET = "app.css"
"""The joined stylesheet's name, under ``v/VERSION/``."""

_LINK = re.compile(r'[ \t]*<link rel="stylesheet" href="(?P<href>[^"?#]+\.css)"\s*/?>\n?')
_SCRIPT = re.compile(r'<script type="module" src="(?P<src>[^"?#]+\.js)"></script>')
_IMPORT = re.compile(r"""(?:\bfrom|^\s*import)\s*["'](?P<spec>\.{1,2}/[^"']+\.js)["']""", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Page:
    """The page as served, and the inputs it was built from (path -> modification time)."""

    html: str
    stylesheet: bytes
    version: str
    """A hash of the joined stylesheet and every module: the ``v/VERSION/`` of their paths."""
    inputs: tuple[tuple[Path, int], ...]

    @classmethod
    def build(cls, root: Path) -> Page:
        """Build from ``root`` (the client's folder, resolved), reading ``index.html``."""
        index = root / "index.html"
        html = index.read_text(encoding="utf-8")
        inputs = [index]
        sheets = [p for p in (inside(root, m["href"]) for m in _LINK.finditer(html)) if p is not None]
        inputs += sheets
        stylesheet = b"".join(
            f"/* {p.relative_to(root)} */\n".encode() + p.read_bytes() + b"\n" for p in sheets
        )
        entries = [p for p in (inside(root, m["src"]) for m in _SCRIPT.finditer(html)) if p is not None]
        modules = _modules(root, entries)
        inputs += modules
        digest = hashlib.sha256(stylesheet)
        for m in modules:
            digest.update(m.relative_to(root).as_posix().encode() + b"\0" + m.read_bytes() + b"\0")
        version = digest.hexdigest()[:16]
        prefix = f"v/{version}/"
        if sheets:
            html = _join_links(html, root, f'<link rel="stylesheet" href="{prefix}{STYLESHEET}" />')
        html = _SCRIPT.sub(
            lambda m: m[0].replace(m["src"], prefix + m["src"]) if inside(root, m["src"]) else m[0], html
        )
        preloads = "".join(
            f'    <link rel="modulepreload" href="{prefix}{m.relative_to(root).as_posix()}" />\n'
            for m in modules
            if m not in entries
        )
        html = html.replace("  </head>", preloads + "  </head>", 1)
        return cls(html, stylesheet, version, tuple((p, p.stat().st_mtime_ns) for p in inputs))

    def fresh(self) -> bool:
        """Whether no input changed on disk since the build."""
        try:
            return all(p.stat().st_mtime_ns == t for p, t in self.inputs)
        except OSError:
            return False


def inside(root: Path, rel: str | Path) -> Path | None:
    """``rel`` (relative to ``root``, or a path) as a file inside ``root``, or None."""
    try:
        path = (root / rel).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL in the path
        return None
    return path if path.is_relative_to(root) and path.is_file() else None


def _join_links(html: str, root: Path, replacement: str) -> str:
    """The page with its first joined stylesheet link replaced and the others removed."""
    done = False

    def one(m: re.Match[str]) -> str:
        nonlocal done
        if inside(root, m["href"]) is None:
            return m[0]
        if done:
            return ""
        done = True
        indent = m[0][: len(m[0]) - len(m[0].lstrip())]
        return f"{indent}{replacement}\n"

    return _LINK.sub(one, html)


def _modules(root: Path, entries: list[Path]) -> list[Path]:
    """Every module reachable by static imports from ``entries`` (themselves included), in the
    order first found."""
    found: dict[Path, None] = {}
    todo = list(entries)
    while todo:
        path = todo.pop(0)
        if path in found:
            continue
        found[path] = None
        text = path.read_text(encoding="utf-8")
        for m in _IMPORT.finditer(text):
            child = inside(root, path.parent / m["spec"])
            if child is not None and child not in found:
                todo.append(child)
    return list(found)


class PageCache:
    """The page built from a client folder, rebuilt when one of its files changed on disk."""

    def __init__(self) -> None:
        self._page: Page | None = None

    def get(self, root: Path, *, check: bool = True) -> Page:
        """The current page of ``root`` (resolved; it holds ``index.html``). ``check=False``
        trusts the last build without looking at the files again (the page's own requests:
        the page itself, asked first, has just looked)."""
        page = self._page
        if page is None or page.inputs[0][0].parent != root or (check and not page.fresh()):
            page = self._page = Page.build(root)
        return page
