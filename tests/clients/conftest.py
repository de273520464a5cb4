"""The live server of the Python client's tests: one per test module (a module may define its
own ``base_url`` to start it with other settings)."""

from __future__ import annotations

import pytest

from tests.live_server import live_server


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    with live_server(tmp_path_factory.mktemp("server")) as url:
        yield url
