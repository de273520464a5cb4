"""The hosting files agree with the server: docker-compose.yml, deploy/nginx.conf and the
Dockerfile name only commands, options, environment variables, ports and routes that the server
really has. (Docker cannot run here; the topology itself runs as processes in test_topology.)"""

from __future__ import annotations

import ipaddress
import re
import shlex
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
import yaml
from sqlalchemy import make_url

from server.__main__ import _parser
from server.config import Settings

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ("server1", "server2")


class Recording(Mapping[str, str]):
    """An environment that remembers which variables the server asked for."""

    def __init__(self, values: Mapping[str, str]) -> None:
        self.values = dict(values)
        self.asked: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        return self.values[key]

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return key in self.values

    def get(self, key: str, default=None):  # type: ignore[override]
        self.asked.add(key)
        return self.values.get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def env_of(service: dict) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k: str(v) for k, v in env.items()}


def test_the_compose_file_runs_postgres_a_migration_two_servers_redis_and_a_balancer(compose):
    services = compose["services"]
    assert set(services) == {"postgres", "migrate", *SERVERS, "redis", "balancer"}
    assert services["postgres"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")
    assert services["balancer"]["image"].startswith("nginx:")
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in SERVERS:
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert set(services["balancer"]["depends_on"]) == set(SERVERS)


def test_the_migration_and_the_replicas_share_one_image_built_here(compose):
    services = compose["services"]
    users = ("migrate", *SERVERS)
    # Each names the build (Compose v2 would otherwise try to pull an image only named) and
    # the same tag, so one build serves all three.
    assert {services[name].get("build") for name in users} == {"."}
    images = {services[name].get("image") for name in users}
    assert len(images) == 1 and None not in images, images


def test_every_command_in_the_compose_file_and_the_dockerfile_parses_with_the_server_cli(compose):
    migrate = compose["services"]["migrate"]["command"]
    assert migrate[:3] == ["python", "-m", "server"]
    assert _parser().parse_args(migrate[3:]).command == "migrate"
    dockerfile = (ROOT / "Dockerfile").read_text()
    cmd = re.search(r"^CMD (\[.*\])$", dockerfile, re.M)
    assert cmd is not None
    args = yaml.safe_load(cmd.group(1))
    assert args[:3] == ["python", "-m", "server"]
    assert _parser().parse_args(args[3:]).command in (None, "serve")
    for line in re.findall(r"^COPY (?!--from)(.+) \S+$", dockerfile, re.M):
        for src in shlex.split(line):
            assert (ROOT / src).exists(), f"the Dockerfile copies {src}, which does not exist"


def test_every_environment_variable_given_to_the_servers_is_one_the_server_reads(compose):
    services = compose["services"]
    postgres = env_of(services["postgres"])
    urls = set()
    for name in (*SERVERS, "migrate"):
        env = Recording(env_of(compose["services"][name]))
        settings = Settings.from_env(env)
        unread = set(env.values) - env.asked
        assert not unread, f"{name} sets {sorted(unread)}, which the server never reads"
        url = make_url(settings.database_url)
        assert url.get_backend_name() == "postgresql" and url.drivername == "postgresql+asyncpg"
        assert (url.host, url.port or 5432) == ("postgres", 5432)
        assert (url.username, url.password, url.database) == (
            postgres["POSTGRES_USER"],
            postgres["POSTGRES_PASSWORD"],
            postgres["POSTGRES_DB"],
        )
        urls.add(settings.database_url)
        if name in SERVERS:
            assert settings.host == "0.0.0.0"
            assert settings.migrate is False, "replicas must leave migrating to the migrate job"
            assert settings.broadcast == "postgres"
            assert settings.rate_limit_storage == "redis://redis:6379/0", (
                "both replicas count the limits together"
            )
            assert services[name]["depends_on"]["redis"]["condition"] == "service_started"
    assert len(urls) == 1, "the migration and the servers must share one database"


def test_the_balancer_sends_every_replica_websocket_upgrades_on_the_servers_port(compose):
    services = compose["services"]
    (mount,) = services["balancer"]["volumes"]
    source, target = mount.split(":")[:2]
    assert target == "/etc/nginx/nginx.conf"
    conf = (ROOT / source).read_text()
    upstreams = set(re.findall(r"^\s*server (\S+?):(\d+)", conf, re.M))
    ports = {str(Settings.from_env(env_of(services[s])).port) for s in SERVERS}
    assert upstreams == {(s, p) for s in SERVERS for p in ports}
    assert re.search(r"proxy_set_header Upgrade \$http_upgrade", conf)
    assert re.search(r"proxy_set_header Connection \$connection_upgrade", conf)
    assert re.search(r"proxy_http_version 1\.1", conf)
    # The browser's host with its port (the Origin check and the links need it), the client's
    # address and the scheme, each set exactly once.
    headers = dict(re.findall(r"^\s*proxy_set_header (\S+) (\S+);", conf, re.M))
    assert len(headers) == len(re.findall(r"^\s*proxy_set_header ", conf, re.M))
    assert headers["Host"] == "$http_host", "$host drops the port the browser used"
    assert headers["X-Forwarded-For"] == "$proxy_add_x_forwarded_for"
    assert headers["X-Real-IP"] == "$remote_addr"
    # Set here, so a client's own X-Forwarded-Host never reaches the replicas (they believe it
    # from this balancer: links, the Origin check and passkeys' RP ID would follow it).
    assert headers["X-Forwarded-Host"] == "$http_host"
    # The scheme: the balancer's own, or the TLS front's (only from the front's addresses).
    proto = headers["X-Forwarded-Proto"]
    assert proto == "$scheme" or re.search(rf"map \S+ {re.escape(proto)} \{{\s*default\s+\$scheme;", conf), (
        f"X-Forwarded-Proto is {proto}, which does not fall back to $scheme"
    )
    # POST is never retried on another replica (nginx's default; no "non_idempotent").
    assert "non_idempotent" not in conf
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert f"EXPOSE {ports.pop()}" in dockerfile
    assert "/healthz" in dockerfile


def test_the_image_holds_every_file_the_server_reads_at_run_time():
    from server.rules.presets import SEEDS_DIR
    from server.storage.engine import ALEMBIC_INI, MIGRATIONS

    dockerfile = (ROOT / "Dockerfile").read_text()
    copied = [
        ROOT / src
        for line in re.findall(r"^COPY (?!--from)(.+) \S+$", dockerfile, re.M)
        for src in shlex.split(line)
    ]
    for needed in (SEEDS_DIR, ALEMBIC_INI, MIGRATIONS, Settings().static_dir):
        assert any(needed == c or c in needed.parents for c in copied), f"the image lacks {needed}"


def test_the_replicas_trust_the_forwarded_headers_of_the_balancer_and_of_nobody_else(compose):
    services = compose["services"]
    (subnet,) = (ipaddress.ip_network(c["subnet"]) for c in compose["networks"]["default"]["ipam"]["config"])
    balancer = ipaddress.ip_address(services["balancer"]["networks"]["default"]["ipv4_address"])
    assert balancer in subnet
    for name in SERVERS:
        networks = services[name].get("networks", ["default"])
        assert "default" in networks, f"{name} is not on the balancer's network"
        trusted = [ipaddress.ip_network(t) for t in Settings.from_env(env_of(services[name])).trusted_proxies]
        assert trusted, f"{name} trusts no proxy: every client would share the balancer's rate limit"
        assert any(balancer in t for t in trusted), f"{name} does not trust the balancer {balancer}"
        # Only the balancer: not the whole network (postgres, migrate) nor the published side.
        assert all(t.num_addresses == 1 for t in trusted), trusted
    for name in ("postgres", "migrate"):
        assert "networks" not in services[name] or "default" in services[name]["networks"]


def test_the_balancer_has_room_for_ten_thousand_matches_sockets(compose):
    """Each proxied WebSocket is two connections in nginx; nginx's default of 512 a worker held
    about 240 sockets (tests/scale/test_nginx_capacity.py runs 300 through it)."""
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    connections = re.search(r"^\s*worker_connections (\d+);", conf, re.M)
    files = re.search(r"^\s*worker_rlimit_nofile (\d+);", conf, re.M)
    assert connections and files, "deploy/nginx.conf leaves nginx's 512 worker connections"
    # 10,000 matches: 20,000 players' sockets, 40,000 connections, in any one worker.
    assert int(connections.group(1)) >= 40_000
    assert int(files.group(1)) >= int(connections.group(1))
    assert compose["services"]["balancer"]["ulimits"]["nofile"] >= int(files.group(1))


def test_metrics_are_refused_at_the_balancer_but_to_loopback():
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    block = re.search(r"location = /metrics \{(.*?)\n    \}", conf, re.S)
    assert block, "deploy/nginx.conf passes /metrics on to anyone"
    rules = re.findall(r"^\s*(allow|deny) (\S+);", block.group(1), re.M)
    assert rules[-1] == ("deny", "all"), rules
    for _, network in rules[:-1]:
        net = ipaddress.ip_network(network)
        # Not private ranges: Docker's published ports can show every client as the bridge's
        # gateway, a private address.
        assert net.is_loopback, f"/metrics is allowed to {network}"
    assert "proxy_pass http://ginrummy;" in block.group(1)


def test_the_image_keeps_its_database_in_a_volume_and_checks_the_port_it_listens_on():
    dockerfile = (ROOT / "Dockerfile").read_text()
    workdir = re.findall(r"^WORKDIR (\S+)$", dockerfile, re.M)[-1]
    data = Path(workdir) / Settings().database_url.split("///", 1)[1]
    assert re.search(rf"^VOLUME {re.escape(str(data.parent))}$", dockerfile, re.M), (
        f"the image should declare its SQLite folder {data.parent} a volume"
    )
    (check,) = re.findall(r"^HEALTHCHECK .*$", dockerfile, re.M)
    assert "GINRUMMY_PORT" in check and ":8080/" not in check, check


def test_the_build_context_leaves_out_local_state_but_nothing_the_image_copies():
    import fnmatch

    ignore = ROOT / ".dockerignore"
    assert ignore.exists(), "without .dockerignore the build context carries .venv, .git and data"
    patterns = [
        line.strip() for line in ignore.read_text().splitlines() if line.strip() and not line.startswith("#")
    ]
    for needed in (".venv", ".git", "data", "**/node_modules", ".mypy_cache", ".pytest_cache"):
        assert needed in patterns, f".dockerignore should leave out {needed}"
    dockerfile = (ROOT / "Dockerfile").read_text()
    copied = [
        src
        for line in re.findall(r"^COPY (?!--from)(.+) \S+$", dockerfile, re.M)
        for src in shlex.split(line)
    ]
    for src in copied:
        for pattern in patterns:
            bare = pattern.removeprefix("**/")
            assert not fnmatch.fnmatch(src, pattern) and not fnmatch.fnmatch(src, bare), (
                f".dockerignore's {pattern} leaves out {src}, which the Dockerfile copies"
            )
