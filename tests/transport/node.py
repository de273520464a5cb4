"""Running the Node tools of tests/js (Ajv, openapi-typescript) from the tests.

The tests that need them skip, saying so, only when ``node`` is not installed; when it is, the
tools must be installed too (``npm ci --prefix tests/js``), or the tests fail saying how."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

JS = Path(__file__).resolve().parents[1] / "js"


def need_node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the Ajv and openapi-typescript checks need Node 20")
    assert (JS / "node_modules" / "ajv").is_dir(), "the Node tools are missing: run npm ci --prefix tests/js"
    return node


def ajv(documents: dict[str, Any], samples: list[dict[str, Any]]) -> dict[str, Any]:
    """Validate ``samples`` (``{"document", "schema", "data"}``) with Ajv (strict) after compiling
    every component of ``documents``; the report, or an assertion error naming the failures."""
    node = need_node()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"documents": documents, "samples": samples}, f)
        path = f.name
    try:
        done = subprocess.run(
            [node, str(JS / "validate.mjs"), path], capture_output=True, text=True, timeout=300
        )
    finally:
        Path(path).unlink()
    assert done.returncode in (0, 1) and done.stdout, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert done.returncode == 0, json.dumps(report["failures"], indent=1)[:6000]
    assert "strict mode" not in done.stderr, done.stderr[-3000:]
    return report


def openapi_typescript(document: dict[str, Any]) -> str:
    """The TypeScript openapi-typescript generates for ``document``."""
    node = need_node()
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "openapi.json", Path(tmp) / "schema.d.ts"
        src.write_text(json.dumps(document), encoding="utf-8")
        cli = JS / "node_modules" / "openapi-typescript" / "bin" / "cli.js"
        done = subprocess.run(
            [node, str(cli), str(src), "-o", str(out)], capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        return out.read_text(encoding="utf-8")
