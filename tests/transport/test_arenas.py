"""The malloc arena cap (:mod:`server.transport.arenas`), counted by glibc itself: threads that
allocate each get an arena of their own, up to the cap. Run in fresh processes, since a cap
holds for the rest of a process's life."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

from server.transport.arenas import limit_arenas

pytestmark = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc arenas are glibc's")

COUNT = """
import ctypes, json, sys, tempfile, threading
from server.transport.arenas import limit_arenas

capped = limit_arenas(int(sys.argv[1]))
barrier = threading.Barrier(8)
held = []

def allocate():
    held.append([bytearray(4096) for _ in range(50)])  # malloc, from this thread's arena
    barrier.wait()  # all alive at once: none hands its arena on to the next

threads = [threading.Thread(target=allocate) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
libc.fopen.argtypes = (ctypes.c_char_p, ctypes.c_char_p)
libc.malloc_info.argtypes = (ctypes.c_int, ctypes.c_void_p)
libc.fclose.argtypes = (ctypes.c_void_p,)
with tempfile.NamedTemporaryFile(suffix=".xml") as f:
    stream = libc.fopen(f.name.encode(), b"w")
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    heaps = open(f.name).read().count("<heap nr=")
print(json.dumps({"capped": capped, "heaps": heaps}))
"""


def arenas_after_eight_threads(cap: int, **env: str) -> dict[str, object]:
    clean = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    out = subprocess.run(
        [sys.executable, "-c", COUNT, str(cap)],
        capture_output=True,
        text=True,
        env={**clean, **env},
        check=True,
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def test_capped_threads_share_two_arenas_where_each_had_its_own():
    assert arenas_after_eight_threads(2) == {"capped": True, "heaps": 2}
    uncapped = arenas_after_eight_threads(0)
    assert uncapped["capped"] is False and uncapped["heaps"] > 2  # type: ignore[operator]


def test_glibcs_own_variable_wins():
    assert arenas_after_eight_threads(2, MALLOC_ARENA_MAX="3") == {"capped": False, "heaps": 3}


def test_no_cap_asked_sets_none():
    assert limit_arenas(0) is False


def test_the_server_caps_its_arenas_before_it_starts_and_says_so(tmp_path):
    from server.bench.load import free_port

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GINRUMMY_", "MALLOC_"))}
    env |= {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'a.db'}", "GINRUMMY_PORT": str(free_port())}
    server = subprocess.Popen(
        [sys.executable, "-m", "server"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        assert server.stdout is not None
        first = json.loads(server.stdout.readline())
    finally:
        server.kill()
        server.wait()
    assert first["msg"] == "serving" and first["malloc_arenas"] == 2
