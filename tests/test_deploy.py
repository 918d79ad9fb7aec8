"""The Dockerfile and compose.yaml agree with the code (docker cannot build or run here):
the entry point and health check are `umpire` commands that exist, every setting they set
is a setting the bot reads and parses, the stop signal is one the bot handles, Node.js is
installed for JavaScript bots, the bot runs as a user without privileges, and its data is
on a volume."""

from __future__ import annotations

import json
import os
import re
import shlex
import tomllib
from pathlib import Path

import pytest
import yaml

from bot.cli import build_parser
from bot.config import Settings, load_settings

ROOT = Path(__file__).resolve().parent.parent


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def _command(args: str) -> list[str]:
    return json.loads(args) if args.startswith("[") else shlex.split(args)


def _is_umpire_command(argv: list[str]) -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert argv[0] in scripts and scripts[argv[0]] == "bot.cli:main", argv
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert argv[1] in commands, f"`umpire {argv[1]}` is not a command"
    build_parser().parse_args(argv[1:])  # its options parse


def _env(pairs: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in shlex.split(pairs))


def _settings_from(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name in list(os.environ):
        if name.startswith("UMPIRE_") or name == "DISCORD_TOKEN":
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return load_settings()  # refuses a variable that names no setting, or a bad value


def test_the_image_runs_umpire_run_and_checks_umpire_health() -> None:
    steps = dict(dockerfile())
    _is_umpire_command(_command(steps["CMD"]))
    assert _command(steps["CMD"])[1] == "run"
    health = steps["HEALTHCHECK"]
    assert health.startswith("--") and " CMD " in f" {health} "
    _is_umpire_command(_command(health.split(" CMD ", 1)[1]))
    assert _command(health.split(" CMD ", 1)[1])[1] == "health"


def test_the_image_stops_with_a_signal_the_bot_handles() -> None:
    import signal

    from bot.discord import runner

    steps = dict(dockerfile())
    stop = steps.get("STOPSIGNAL", "SIGTERM")
    assert stop == "SIGTERM"
    if "ENTRYPOINT" in steps:  # an init that passes the signal on, then the command
        entry = _command(steps["ENTRYPOINT"])
        assert entry[0].endswith("tini") and entry[-1] == "--", entry
        assert any(w == "RUN" and re.search(r"apt-get install .*\btini\b", a)
                   for w, a in dockerfile())
    handled = re.findall(r"signal\.(SIG[A-Z]+)", Path(runner.__file__).read_text())
    assert stop in handled and getattr(signal, stop)  # tests/discord/test_run_process.py runs it


def test_the_image_sets_only_settings_the_bot_reads_and_needs_no_config_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env: dict[str, str] = {}
    for word, args in dockerfile():
        if word == "ENV":
            env.update(_env(args))
    assert "UMPIRE_CONFIG" not in env  # a fresh volume has no config file
    monkeypatch.chdir(tmp_path)  # the image's WORKDIR, empty: no config.toml
    settings = _settings_from({k: v for k, v in env.items() if k.startswith("UMPIRE_")},
                              monkeypatch)
    workdir = [args for word, args in dockerfile() if word == "WORKDIR"][-1]
    volume = json.loads(dict(dockerfile())["VOLUME"])
    assert workdir in volume  # a config.toml put on the volume is read
    assert settings.database.url.startswith(tuple(volume))  # the database is on the volume
    assert settings.health.status_file


def test_the_image_copies_every_file_the_build_reads_before_installing() -> None:
    steps = dockerfile()
    install = next(i for i, (w, a) in enumerate(steps)
                   if w == "RUN" and re.search(r"\bpip install\b", a))
    copied = {part for w, a in steps[:install] if w == "COPY" for part in a.split()[:-1]}
    assert {"pyproject.toml", "setup.py", "README.md", "bot", "games"} <= copied, copied


def test_the_image_installs_node_and_runs_as_a_user_without_privileges() -> None:
    steps = dockerfile()
    assert any(w == "RUN" and re.search(r"apt-get install .*\bnodejs\b", a) for w, a in steps)
    users = [a for w, a in steps if w == "USER"]
    assert users and users[-1] not in ("root", "0")
    last_user = max(i for i, (w, _) in enumerate(steps) if w == "USER")
    assert last_user < next(i for i, (w, _) in enumerate(steps) if w == "CMD")


def _compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def _expand(value: str, given: dict[str, str]) -> str:
    """${NAME}, ${NAME:-default} and ${NAME:?error} as compose expands them."""
    def one(m: re.Match[str]) -> str:
        name, op, rest = m.group(1), m.group(2), m.group(3)
        if name in given:
            return given[name]
        assert op != ":?", f"{name} must be given"
        return rest or ""
    return re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", one, str(value))


def test_compose_runs_the_bot_on_postgresql_and_a_two_shard_example(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    compose = _compose()
    services = compose["services"]
    assert {"db", "bot", "shard-0", "shard-1"} <= set(services)
    db = services["db"]
    assert db["image"].startswith("postgres") and "healthcheck" in db
    assert any(v.split(":")[0] in compose["volumes"] for v in db["volumes"])  # data kept
    given = {"DISCORD_TOKEN": "token", "POSTGRES_PASSWORD": "pw"}
    shards: dict[str, set[int]] = {}
    for name in ("bot", "shard-0", "shard-1"):
        service = services[name]
        _is_umpire_command(service["command"])
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        env = {k: _expand(v, given) for k, v in service["environment"].items()}
        settings = _settings_from(env, monkeypatch)
        assert settings.discord.token and settings.discord.token.get_secret_value() == "token"
        from bot.store.database import database_url
        url = database_url(settings.database.url)
        assert url == (f"postgresql+asyncpg://{db['environment']['POSTGRES_USER']}:pw@db:5432/"
                       f"{db['environment']['POSTGRES_DB']}")
        if name != "bot":
            assert service["profiles"] == ["sharded"]  # run instead of `bot`, not beside it
            assert settings.shards.count == 2
            shards[name] = settings.shards.preferred
    assert shards["shard-0"] | shards["shard-1"] == {0, 1}
    assert not shards["shard-0"] & shards["shard-1"]
    with pytest.raises(AssertionError, match="DISCORD_TOKEN must be given"):
        _expand(services["bot"]["environment"]["DISCORD_TOKEN"], {})


def test_the_readme_walks_from_invite_to_first_match_with_commands_that_exist() -> None:
    from bot.discord.invite import permissions

    text = (ROOT / "README.md").read_text()
    section = text.split("## Run it for your server", 1)[1].split("\n## ", 1)[0]
    for step in ("Create the bot", "Invite it", "Check", "First match"):
        assert step in section
    commands = re.findall(r"`(?:docker compose run --rm bot )?(umpire [a-z][^`]*)`", section)
    assert {"umpire invite", "umpire run --check"} <= set(commands)
    for command in commands:
        if command.split()[1] in ("verify", "health"):
            continue
        _is_umpire_command(shlex.split(command))
    for mode in ("threads", "channels"):
        assert str(permissions(mode).value) in section
    services = _compose()["services"]
    for name in re.findall(r"compose (?:run --rm |--profile sharded up -d )(\w[\w-]*)", section):
        assert name in services


def test_compose_has_no_fallback_password_and_the_readme_keeps_it_in_env() -> None:
    """Issue 42, item 4: a fallback password differs from the one the volume keeps after
    the first start, so compose refuses to start without POSTGRES_PASSWORD, and the README's
    setup writes it (and the token) to a .env beside compose.yaml, read on every start."""
    services = _compose()["services"]
    for value in (services["db"]["environment"]["POSTGRES_PASSWORD"],
                  services["bot"]["environment"]["UMPIRE_DATABASE__URL"]):
        with pytest.raises(AssertionError, match="POSTGRES_PASSWORD must be given"):
            _expand(value, {"DISCORD_TOKEN": "token"})
    assert ":-" not in (ROOT / "compose.yaml").read_text()  # no fallback for any variable
    section = (ROOT / "README.md").read_text().split("## Run it for your server", 1)[1]
    setup = section.split("```bash", 1)[1].split("```", 1)[0]
    assert "> .env" in setup and "POSTGRES_PASSWORD=" in setup and "DISCORD_TOKEN=" in setup
    assert "export POSTGRES_PASSWORD" not in setup


def test_the_hosts_guide_covers_the_whole_life_of_a_server() -> None:
    """Issue 42, item 17: Public Bot off, the code grant off, secrets in .env, backup and
    restore of both databases, upgrading and what a restart mid-match does."""
    text = (ROOT / "docs" / "discord.md").read_text()
    app = text.split("## Setting up the application", 1)[1].split("\n## ", 1)[0]
    assert "**Public Bot: off.**" in app and "**Requires OAuth2 Code Grant: off**" in app
    assert "`.env`" in app and "POSTGRES_PASSWORD" in app
    life = text.split("## Backups and upgrades", 1)[1].split("\n## ", 1)[0]
    for needed in ('.backup', "sqlite3.connect", "-wal", "pg_dump", "pg_restore",
                   "**Upgrading.**", "docker compose build", "migrates the database",
                   "**A restart mid-match**", "shifts every running clock"):
        assert needed in life, needed
