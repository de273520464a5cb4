"""The page as served: one joined stylesheet instead of one request per file, every module of
the client announced up front, both under a versioned path cached for a year
(``server/transport/page.py``)."""

from __future__ import annotations

import re
import shutil

from server.config import Settings

LINKS = re.compile(r'<link rel="stylesheet" href="([^"]+)"')
PRELOADS = re.compile(r'<link rel="modulepreload" href="([^"]+)"')
SCRIPTS = re.compile(r'<script type="module" src="([^"]+)"')
VERSIONED = re.compile(r"v/[0-9a-f]{16}/")
IMMUTABLE = "public, max-age=31536000, immutable"


def version(page: str) -> str:
    (link,) = LINKS.findall(page)
    return link.split("/")[1]


def on_disk(name: str) -> list[str]:
    """The stylesheets ``index.html`` links on disk, in order."""
    return LINKS.findall((Settings().static_dir / name).read_text())


async def test_the_page_links_one_stylesheet_joining_the_files_in_the_pages_order(make_client):
    client = await make_client()
    page = await (await client.get("/")).text()
    (link,) = LINKS.findall(page)
    assert re.fullmatch(r"v/[0-9a-f]{16}/app\.css", link)
    r = await client.get("/" + link)
    assert r.status == 200 and r.content_type == "text/css"
    assert r.headers["Cache-Control"] == IMMUTABLE
    assert (await client.get("/")).headers["Cache-Control"] == "no-cache"
    joined = await r.text()
    files = on_disk("index.html")
    assert len(files) > 1
    at = [joined.index(f"/* {name} */\n") for name in files]
    assert at == sorted(at)
    for name in files:
        assert (Settings().static_dir / name).read_text() in joined


async def test_an_old_version_gets_todays_files_revalidated_each_time(make_client):
    client = await make_client()
    current = version(await (await client.get("/")).text())
    for path in ("app.css", "js/main.js"):
        now = await client.get(f"/v/{current}/{path}")
        old = await client.get(f"/v/0123456789abcdef/{path}")
        assert old.status == 200 and old.headers["Cache-Control"] == "no-cache"
        assert await old.read() == await now.read()
    assert (await client.get(f"/v/{current}/js/nothing.js")).status == 404
    assert (await client.get(f"/v/{current}/../../pyproject.toml")).status == 404


async def test_every_module_the_page_imports_is_preloaded_and_served(make_client):
    client = await make_client()
    page = await (await client.get("/")).text()
    prefix = f"v/{version(page)}/"
    assert SCRIPTS.findall(page) == [prefix + "js/main.js"]
    preloads = PRELOADS.findall(page)
    assert all(p.startswith(prefix) for p in preloads)
    preloads = [p.removeprefix(prefix) for p in preloads]
    web = Settings().static_dir
    every = {p.relative_to(web).as_posix() for p in (web / "js").rglob("*.js")}
    # main.js loads as the page's script; every other module it reaches is preloaded once
    assert len(preloads) == len(set(preloads))
    assert "js/main.js" not in preloads
    assert set(preloads) <= every
    assert {"js/table/hand.js", "js/dom.js", "js/court.js"} <= set(preloads)
    for path in preloads:
        r = await client.get(f"/{prefix}{path}")
        assert r.status == 200 and r.headers["Cache-Control"] == IMMUTABLE


async def test_a_changed_stylesheet_gives_a_new_version_on_the_next_load(make_client, tmp_path):
    web = tmp_path / "web"
    web.mkdir()
    (web / "index.html").write_text(
        "<html><head>\n"
        '    <link rel="stylesheet" href="a.css" />\n'
        '    <link rel="stylesheet" href="b.css" />\n'
        '    <script type="module" src="main.js"></script>\n'
        "  </head><body></body></html>\n"
    )
    (web / "a.css").write_text("body { color: red; }")
    (web / "b.css").write_text("p { margin: 0; }")
    (web / "main.js").write_text('import { x } from "./x.js";\nimport "./y.js";\n')
    (web / "x.js").write_text("export const x = 1;")
    (web / "y.js").write_text("")
    client = await make_client(static_dir=web)
    first = await (await client.get("/")).text()
    prefix = f"v/{version(first)}/"
    assert PRELOADS.findall(first) == [prefix + "x.js", prefix + "y.js"]
    assert LINKS.findall(first) == [prefix + "app.css"]
    (web / "b.css").write_text("p { margin: 1em; }")
    second = await (await client.get("/")).text()
    assert version(second) != version(first)
    joined = await (await client.get(f"/v/{version(second)}/app.css")).text()
    assert "p { margin: 1em; }" in joined and "p { margin: 0; }" not in joined
    (web / "y.js").write_text("export const y = 2;")
    third = await (await client.get("/")).text()
    assert version(third) != version(second)  # a changed module: a new version too


async def test_a_stylesheet_or_import_outside_the_folder_is_neither_read_nor_joined(make_client, tmp_path):
    outside = tmp_path / "secret.css"
    outside.write_text("/* not for the web */")
    (tmp_path / "secret.js").write_text("// not for the web")
    web = tmp_path / "web"
    shutil.copytree(Settings().static_dir, web)
    index = web / "index.html"
    html = index.read_text().replace(
        "  </head>", '    <link rel="stylesheet" href="../secret.css" />\n  </head>'
    )
    index.write_text(html)
    (web / "js" / "main.js").write_text(
        (web / "js" / "main.js").read_text() + '\nimport "../../secret.js";\n'
    )
    client = await make_client(static_dir=web)
    page = await (await client.get("/")).text()
    links = LINKS.findall(page)
    assert links[1] == "../secret.css"  # left as written: the browser gets a 404
    assert not any("secret" in p for p in PRELOADS.findall(page))
    joined = await (await client.get("/" + links[0])).text()
    assert "not for the web" not in joined
    assert (await client.get("/../secret.css")).status == 404


async def test_without_the_client_folder_there_is_no_stylesheet(make_client, tmp_path):
    client = await make_client(static_dir=tmp_path / "nowhere")
    assert "not installed here yet" in await (await client.get("/")).text()
    assert (await client.get("/v/0123456789abcdef/app.css")).status == 404
