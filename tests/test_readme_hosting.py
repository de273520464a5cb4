"""The README's operator sections name what really exists: every subcommand and option of
``python -m server`` and every log level it accepts (``serve``, ``migrate --revision`` and
``critical`` had gone unmentioned), and the compose services by their names (the balancer had
been called ``nginx``)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import yaml

from server.__main__ import _parser
from server.config import Settings

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    return README[start : README.index("\n## ", start + 1)]


def test_every_subcommand_option_and_log_level_is_in_the_readme():
    text = section("Running the server") + section("Configuration")
    parser = _parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"`{name}`" for name in sub.choices if not re.search(rf"python -m server {name}\b", text)]
    for command in [parser, *sub.choices.values()]:
        for action in command._actions:
            missing += [
                o for o in action.option_strings if o.startswith("--") and o != "--help" and o not in text
            ]
    for level in ("debug", "info", "warning", "error", "critical"):
        Settings(log_level=level).validate()  # the server takes it...
        if f"`{level}`" not in text:  # ...and the README says so
            missing.append(level)
    assert missing == [], "not in the README's Running the server or Configuration"


def test_the_readme_names_the_compose_services_as_the_compose_file_does():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    names = set(compose["services"]) | {s["image"] for s in compose["services"].values() if "image" in s}
    start = README.index("`docker-compose.yml` is the reference topology")
    sentence = README[start : README.index("\n\n", start)]
    named = re.findall(r"`([\w-]+)`", sentence)
    assert "balancer" in named
    assert [n for n in named if n not in names and n != "Dockerfile"] == []
    # The replicas are run by the compose file; deploy/ holds only the balancer's configuration.
    assert "as `deploy/` runs them" not in README
