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
    assert settings.database.url == "sqlite+aiosqlite:///umpire.db"
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
