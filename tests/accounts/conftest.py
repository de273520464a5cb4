"""Argon2 with cheap parameters for these tests (the real ones cost ~50 ms of CPU a hash, on
purpose); what is tested is the same code path."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher


class CheapHasher(PasswordHasher):
    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=1024, parallelism=1)


@pytest.fixture(autouse=True)
def cheap_passwords(monkeypatch):
    monkeypatch.setattr("server.service.accounts.password_hasher", CheapHasher)
