"""The browser client's static files from ``clients/web/`` (``index.html`` at ``/``), or a
small placeholder page while that folder does not exist. Only files inside the folder are
served; nothing else on disk is reachable."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from .. import resources
from .keys import SETTINGS

PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gin Rummy</title></head>
<body><h1>Gin Rummy server</h1>
<p>The browser client is not installed here yet. The API is documented at <a href="/api/docs">/api/docs</a>
(<a href="/api/openapi.json">OpenAPI</a>).</p></body></html>
"""


def _file(root: Path, rel: str) -> Path | None:
    try:
        root = resources.web_root(root).resolve(strict=True)
        path = (root / rel).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL in the path
        return None
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path


async def index(request: web.Request) -> web.StreamResponse:
    path = _file(request.app[SETTINGS].static_dir, "index.html")
    if path is None:
        return web.Response(text=PLACEHOLDER, content_type="text/html")
    return web.FileResponse(path, headers={"Cache-Control": "no-cache"})


async def asset(request: web.Request) -> web.StreamResponse:
    rel = request.match_info["path"]
    if rel.startswith(("api/", "ws")):
        raise web.HTTPNotFound(reason=f"no such endpoint: /{rel}")
    path = _file(request.app[SETTINGS].static_dir, rel)
    if path is None:
        raise web.HTTPNotFound(reason="no such file")
    return web.FileResponse(path, headers={"Cache-Control": "no-cache"})


def setup(app: web.Application) -> None:
    app.router.add_get("/", index)
    # Registered last: API routes always win over a file of the same name.
    app.router.add_get("/{path:.+}", asset)
