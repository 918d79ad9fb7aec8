"""Parsing what a host types for match settings: `key=value` pairs or a JSON object."""

from __future__ import annotations

import json
import shlex
from typing import Any

from pydantic import ValidationError

from games.core.contract import Game


class SettingsError(ValueError):
    """Settings a host typed that the game does not accept; the message says why."""


def parse_settings(text: str | None) -> dict[str, Any]:
    """`decision_seconds=20 reminders=[10,5]` (spaces or `;` between pairs; values read as
    JSON where they parse, else as text) or a JSON object."""
    if not text or not text.strip():
        return {}
    text = text.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SettingsError(f"The settings are not valid JSON: {exc.msg} (at {exc.pos}).") from exc
        if not isinstance(data, dict):
            raise SettingsError("The settings JSON must be an object, like {\"key\": value}.")
        return data
    try:
        words = shlex.split(text.replace(";", " "))
    except ValueError as exc:
        raise SettingsError(f"Could not read the settings: {exc}.") from exc
    out: dict[str, Any] = {}
    for word in words:
        key, eq, raw = word.partition("=")
        if not eq or not key.strip():
            raise SettingsError(f"`{word}` is not `key=value`. Example: `decision_seconds=20`.")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out[key.strip()] = value
    return out


def validate_settings(game: Game[Any], text: str | None) -> dict[str, Any]:
    """The settings as the game's model accepts them (JSON-ready), or SettingsError naming
    every problem and the settings the game has."""
    data = parse_settings(text)
    try:
        model = game.load_settings(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(x) for x in e['loc']) or 'settings'}: {e['msg']}" for e in exc.errors())
        known = ", ".join(game.settings_model.model_fields)
        raise SettingsError(f"Bad settings for {game.title}: {problems}. "
                            f"Settings: {known}.") from exc
    return {k: v for k, v in model.model_dump(mode="json").items() if k in data}
