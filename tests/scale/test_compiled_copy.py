"""The benchmarks' compiled variant (``--variant name:compiled=1``): a copy of a checkout with the
wheel's hot paths built in place, cached by its content."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.bench import compiled_copy as cc
from server.bench.load.scale import Variant
from server.compiled import MODULES

ROOT = Path(__file__).resolve().parents[2]

FAKE_SETUP = """
import pathlib, sys
if pathlib.Path("fail").exists():
    sys.exit("refused")
pathlib.Path("built.txt").write_text(" ".join(sys.argv[1:]))
"""


def fake_checkout(folder: Path, **files: str) -> Path:
    folder.mkdir()
    (folder / "setup.py").write_text(FAKE_SETUP)
    for name, text in files.items():
        (folder / name).write_text(text)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    return folder


def test_a_compiled_variant_runs_every_hot_path_compiled_and_is_built_once(tmp_path, monkeypatch):
    copy = cc.compiled_copy(ROOT, tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = "import json, server, server.compiled as c; print(json.dumps([server.__file__, c.compiled()]))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=copy, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    package, compiled = json.loads(out.stdout)
    assert Path(package).parent == copy / "server" and compiled == list(MODULES)
    assert not (copy / "build").exists()  # the build's intermediate files are not kept
    extension = next((copy / "server" / "rules").glob("melds.*.so"))
    built_at = extension.stat().st_mtime_ns
    assert cc.compiled_copy(ROOT, tmp_path) == copy and extension.stat().st_mtime_ns == built_at
    # The benchmarks' variants: compiled=1 runs the server from this copy.
    monkeypatch.setattr(
        "server.bench.load.scale.compiled_copy", lambda root: cc.compiled_copy(root, tmp_path)
    )
    assert Variant.parse("wheel:compiled=1,GINRUMMY_UVLOOP=0") == Variant(
        "wheel", {"GINRUMMY_UVLOOP": "0"}, copy
    )


def test_a_copy_is_named_by_its_content_and_the_cache_keeps_the_latest(tmp_path):
    source = fake_checkout(tmp_path / "src", **{"a.py": "x = 1\n"})
    cache = tmp_path / "cache"
    first = cc.compiled_copy(source, cache)
    assert (first / "built.txt").read_text() == "build_ext --inplace" and (first / "a.py").exists()
    (source / "a.py").write_text("x = 2\n")
    second = cc.compiled_copy(source, cache)
    assert second != first and (second / "a.py").read_text() == "x = 2\n"
    for n in range(cc.KEEP + 1):
        (source / "a.py").write_text(f"x = {n + 3}\n")
        cc.compiled_copy(source, cache)
    assert len(list(cache.glob("compiled-*"))) == cc.KEEP


def test_a_failed_build_says_why_and_leaves_no_copy(tmp_path):
    source = fake_checkout(tmp_path / "src", fail="")
    with pytest.raises(cc.CompileFailed, match="refused"):
        cc.compiled_copy(source, tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("compiled-*"))
    with pytest.raises(cc.CompileFailed, match="not a git checkout"):
        cc.compiled_copy(tmp_path / "cache", tmp_path / "cache")
