"""Settings: defaults, config.toml, environment; the example config documents every setting."""

from __future__ import annotations

import tomllib
from pathlib import Path

from bot.config import Settings, load_settings

ROOT = Path(__file__).resolve().parents[1]


def test_defaults_need_no_file_and_no_token(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("UMPIRE_CONFIG", raising=False)
    settings = Settings()
    assert settings.database.url is None  # bot.database_choice picks the one default file
    assert settings.discord.token is None


def test_file_then_environment_override(monkeypatch, tmp_path):
    config = tmp_path / "my.toml"
    config.write_text('[database]\nurl = "sqlite+aiosqlite:///x.db"\n[discord]\nhost_role = "Refs"\n')
    monkeypatch.setenv("UMPIRE_DISCORD__HOST_ROLE", "Umpires")
    monkeypatch.setenv("DISCORD_TOKEN", "abc")
    monkeypatch.delenv("UMPIRE_CONFIG", raising=False)
    settings = load_settings(str(config))
    assert settings.database.url == "sqlite+aiosqlite:///x.db"
    assert settings.discord.host_role == "Umpires"
    assert settings.discord.token is not None and settings.discord.token.get_secret_value() == "abc"
    import os

    assert "UMPIRE_CONFIG" not in os.environ


def test_example_config_names_every_setting_and_parses():
    example = tomllib.loads((ROOT / "config.example.toml").read_text())
    text = (ROOT / "config.example.toml").read_text()
    for section, model in Settings.model_fields.items():
        assert section in example, f"[{section}] missing from config.example.toml"
        for key in model.annotation.model_fields:  # type: ignore[union-attr]
            assert f"{key} =" in text, f"{section}.{key} is not documented in config.example.toml"
    Settings.model_validate({k: v for k, v in example.items()})


# --- mistakes: refused with one sentence naming the file or variable, the key, what is allowed
import pytest  # noqa: E402

from bot.config import ConfigError  # noqa: E402


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for name in list(__import__("os").environ):
        if name.upper().startswith("UMPIRE_"):
            monkeypatch.delenv(name)
    return tmp_path


@pytest.mark.parametrize("text, message", [
    ('[database]\nsnapshot_every = "many"\n',
     "[database] snapshot_every = 'many' is not allowed: it must be a whole number, at least 1."),
    ("[database]\nsnapshot_every = 0\n",
     "[database] snapshot_every = 0 is not allowed: it must be a whole number, at least 1."),
    ("[clock]\nheartbeat_seconds = -1\n",
     "[clock] heartbeat_seconds = -1 is not allowed: it must be a number, more than 0."),
    ("[database]\necho = 'loud'\n",
     "[database] echo = 'loud' is not allowed: it must be true or false."),
    ("[discrod]\n", "unknown section [discrod] (did you mean 'discord'?"),
    ("[database]\nuri = 'x'\n", "unknown key 'uri' in [database] (did you mean 'url'?"),
    ("database = 3\n", "database must be a section [database] with keys (url, snapshot_every"),
    ("[database\n", "not valid TOML (Expected ']'"),
])
def test_a_bad_config_file_is_refused_naming_the_file_and_key(clean_env, text, message):
    path = clean_env / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_settings(str(path))
    assert str(caught.value).startswith(f"{path}: {message}")


def test_a_misspelt_default_config_toml_is_refused_too(clean_env):
    (clean_env / "config.toml").write_text("[bots]\nthink_second = 1\n")
    with pytest.raises(ConfigError, match="config.toml: unknown key 'think_second' in "
                                          r"\[bots\] \(did you mean 'think_seconds'\?"):
        load_settings()


def test_a_missing_config_file_named_by_option_or_environment_is_an_error(clean_env,
                                                                          monkeypatch):
    with pytest.raises(ConfigError, match="nope.toml: the config file given by --config "
                                          "does not exist"):
        load_settings(str(clean_env / "nope.toml"))
    monkeypatch.setenv("UMPIRE_CONFIG", str(clean_env / "gone.toml"))
    with pytest.raises(ConfigError, match="gone.toml: the config file given by UMPIRE_CONFIG"):
        load_settings()


def test_environment_mistakes_name_the_variable(clean_env, monkeypatch):
    monkeypatch.setenv("UMPIRE_DATABASE__SNAPSHOT_EVERY", "many")
    with pytest.raises(ConfigError, match=r"^UMPIRE_DATABASE__SNAPSHOT_EVERY \(environment\) = "
                                          "'many' is not allowed: it must be a whole number"):
        load_settings()
    monkeypatch.delenv("UMPIRE_DATABASE__SNAPSHOT_EVERY")
    monkeypatch.setenv("UMPIRE_DISCROD__TOKEN", "x")
    with pytest.raises(ConfigError, match=r"UMPIRE_DISCROD__TOKEN \(environment\): unknown "
                                          r"section \[discrod\] \(did you mean 'discord'\?"):
        load_settings()
