"""The Python client's command line takes a token that begins with '-' (the server issued one in
64 so before they were drawn otherwise, and those stay valid) and takes the token from
``$GINRUMMY_TOKEN``, so it need not be typed."""

from __future__ import annotations

import pytest
from ginrummy_client import __main__ as cli
from ginrummy_client.rest import GinRummyClient

DASHED = "-Xq3k9sPz0aBcDeFgHiJkLmNoPqRsTuVwXyZ012345678"


@pytest.fixture
def no_token_variable(monkeypatch):
    monkeypatch.delenv(cli.TOKEN_VARIABLE, raising=False)


@pytest.fixture
def asked(monkeypatch):
    """The (match id, token) each ``verify`` run asked the server for, without a server."""
    calls: list[tuple[str, str | None]] = []

    async def get_record(self, match_id):
        calls.append((match_id, self.token))
        raise OSError("no server in this test")

    monkeypatch.setattr(GinRummyClient, "get_record", get_record)
    return calls


def test_a_token_beginning_with_a_dash_is_taken_after_an_equals_sign(no_token_variable, asked):
    assert cli.main(["verify", "m_1", f"--token={DASHED}"]) == 1
    assert asked == [("m_1", DASHED)]


def test_a_token_beginning_with_a_dash_is_taken_after_a_space_too(no_token_variable, asked):
    assert cli.main(["verify", "m_1", "--token", DASHED, "--server", "http://h:1"]) == 1
    assert asked == [("m_1", DASHED)]


def test_the_token_comes_from_the_environment_when_not_given(monkeypatch, asked):
    monkeypatch.setenv(cli.TOKEN_VARIABLE, DASHED)
    assert cli.main(["verify", "m_1"]) == 1
    assert cli.main(["verify", "m_2", "--token", "given"]) == 1
    assert asked == [("m_1", DASHED), ("m_2", "given")]


@pytest.mark.parametrize(
    "words",
    [["play"], ["arena"], ["verify", "m_1"], ["export", "m_1"], ["analysis", "m_1"]],
)
def test_every_command_with_a_token_reads_the_environment_and_says_so(monkeypatch, capsys, words):
    monkeypatch.setenv(cli.TOKEN_VARIABLE, DASHED)
    assert cli.parse_args(words).token == DASHED
    assert cli.parse_args([*words, "--token", "-other"]).token == "-other"
    with pytest.raises(SystemExit):
        cli.parse_args([*words, "--help"])
    assert "$GINRUMMY_TOKEN" in capsys.readouterr().out


def test_a_dashed_watch_token_and_invite_are_values_too(no_token_variable):
    watch = cli.parse_args(["watch", "--match", "m_1", "--watch-token", DASHED])
    assert (watch.match, watch.watch_token) == ("m_1", DASHED)
    assert cli.parse_args(["play", "--join", "-code", "--match", "m_1"]).join == "-code"


def test_an_option_after_token_is_still_an_option_not_the_token(no_token_variable, capsys):
    with pytest.raises(SystemExit):
        cli.parse_args(["verify", "m_1", "--token", "--server", "http://h:1"])
    assert "--token: expected one argument" in capsys.readouterr().err


def test_a_short_option_after_token_is_still_an_option(no_token_variable, capsys):
    with pytest.raises(SystemExit):
        cli.parse_args(["verify", "m_1", "--token", "-h"])
    assert "--token: expected one argument" in capsys.readouterr().err


@pytest.mark.parametrize(
    "spec", ["mypackage.bots:choose", "no_such_strategy_module", "json:no_such_function"]
)
def test_a_strategy_that_cannot_be_loaded_is_a_one_line_usage_error(no_token_variable, capsys, spec):
    assert cli.main(["arena", "--strategy", spec, "--server", "http://127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("python -m ginrummy_client arena: error: --strategy: ")
