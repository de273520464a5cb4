"""The browser client's static files from ``clients/web/``: the page at ``/`` (``index.html``
as :mod:`.page` serves it, its joined stylesheet and modules under ``/v/VERSION/``), or a small placeholder
page while that folder does not exist. Only files inside the folder are served; nothing else on
disk is reachable."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from .. import resources
from .keys import PAGE, SETTINGS
from .page import STYLESHEET, Page, PageCache, inside

PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gin Rummy</title></head>
<body><h1>Gin Rummy server</h1>
<p>The browser client is not installed here yet. The API is documented at <a href="/api/docs">/api/docs</a>
(<a href="/api/openapi.json">OpenAPI</a>).</p></body></html>
"""


IMMUTABLE = "public, max-age=31536000, immutable"


def _file(root: Path, rel: str) -> Path | None:
    try:
        root = resources.web_root(root).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return inside(root, rel)


def _page(request: web.Request, *, check: bool = True) -> Page | None:
    path = _file(request.app[SETTINGS].static_dir, "index.html")
    return None if path is None else request.app[PAGE].get(path.parent, check=check)


async def index(request: web.Request) -> web.StreamResponse:
    page = _page(request)
    if page is None:
        return web.Response(text=PLACEHOLDER, content_type="text/html")
    return web.Response(text=page.html, content_type="text/html", headers={"Cache-Control": "no-cache"})


async def versioned(request: web.Request) -> web.StreamResponse:
    """A file of the page under ``v/VERSION/`` (the joined stylesheet, or any file of the folder):
    cached for a year when VERSION is the current one; an older version gets today's file,
    revalidated each time."""
    page = _page(request, check=False)
    if page is None:
        raise web.HTTPNotFound(reason="no such file")
    rel = request.match_info["path"]
    current = request.match_info["version"] == page.version
    headers = {"Cache-Control": IMMUTABLE if current else "no-cache"}
    if rel == STYLESHEET:
        return web.Response(body=page.stylesheet, content_type="text/css", charset="utf-8", headers=headers)
    path = _file(request.app[SETTINGS].static_dir, rel)
    if path is None:
        raise web.HTTPNotFound(reason="no such file")
    return web.FileResponse(path, headers=headers)


OTHER_METHODS = ("POST", "PUT", "PATCH", "DELETE")
"""The methods an API path may have besides GET (whose routes come before this one)."""


async def _allowed(request: web.Request) -> set[str]:
    """The methods some route has for this request's path (none: the path is unknown)."""
    allowed = set()
    for method in OTHER_METHODS:
        match = await request.app.router.resolve(request.clone(method=method))
        if match.http_exception is None:
            allowed.add(method)
    return allowed


async def asset(request: web.Request) -> web.StreamResponse:
    rel = request.match_info["path"]
    if rel.startswith(("api/", "ws")):
        # A GET (or HEAD) of a path whose routes take only other methods lands here, after
        # them: it is a wrong method (405 with Allow), not an unknown path.
        allowed = await _allowed(request)
        if allowed:
            raise web.HTTPMethodNotAllowed(request.method, allowed)
        raise web.HTTPNotFound(reason=f"no such endpoint: /{rel}")
    path = _file(request.app[SETTINGS].static_dir, rel)
    if path is None:
        raise web.HTTPNotFound(reason="no such file")
    return web.FileResponse(path, headers={"Cache-Control": "no-cache"})


def setup(app: web.Application) -> None:
    app[PAGE] = PageCache()
    app.router.add_get("/", index)
    app.router.add_get("/v/{version}/{path:.+}", versioned)
    # Registered last: API routes always win over a file of the same name.
    app.router.add_get("/{path:.+}", asset)
