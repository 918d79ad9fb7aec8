"""Parsing what a host types for match settings: `key=value` pairs or a JSON object."""

from __future__ import annotations

import json
import math
import shlex
from typing import Any

from pydantic import ValidationError

from bot.config import field_words
from bot.discord.render import escape
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


#: The longest time a timer setting may have (one day, like `/match extend`): a longer one
#: is surely a typo, and beyond what a clock can count from now.
MAX_SECONDS = 86400


def is_duration(name: str) -> bool:
    """Whether a game setting is a time in seconds (by the games' naming: `bet_seconds`,
    `turn_time`, `time_bank`, `reminders`)."""
    return name.endswith(("_seconds", "_time")) or name in ("time_bank", "reminders")


def setting_words(game: Game[Any], name: str) -> str:
    """What setting `name` of `game` accepts, in words, with its range."""
    field = game.settings_model.model_fields[name]
    if not is_duration(name):
        return field_words(field)
    return field_words(field, at_most=MAX_SECONDS, at_least=0) + " (seconds)"


def validate_settings(game: Game[Any], text: str | None) -> dict[str, Any]:
    """The settings as the game's model accepts them (JSON-ready), or SettingsError with one
    sentence per problem, each naming the setting and what it accepts."""
    data = parse_settings(text)
    known = game.settings_model.model_fields
    problems: list[str] = []
    model = None
    try:
        model = game.load_settings(data)
    except ValidationError as exc:
        for error in exc.errors():
            name = str(error["loc"][0]) if error["loc"] else ""
            problems.append(_problem(game, name, data.get(name, error.get("input")),
                                     error["msg"]))
    for name, value in data.items():  # times the model lets through but no clock can run
        values = value if isinstance(value, list | tuple) else [value]
        if name in known and is_duration(name) and any(
                isinstance(v, int | float) and not (math.isfinite(v) and 0 <= v <= MAX_SECONDS)
                for v in values):
            problems.append(_problem(game, name, value, ""))
    accepted = model.model_dump(mode="json") if model is not None else {}
    for name, value in accepted.items():  # texts the matches' messages repeat (puzzle names)
        bad = [t for t in _foreign_strings(value) if escape(t, len(t) * 2 + 1) != t]
        if name in data and bad:
            problems.append(f"{_shown(name)}: {_shown(bad[0])} is not allowed: a setting's "
                            "text may not hold invisible characters, line breaks or "
                            "characters Discord reads as markup (such as `*`, `_`, `[`, `<`, "
                            "`@`, `:`), since the match's messages repeat it.")
    if problems:
        raise SettingsError(f"Bad settings for {game.title}: " + " ".join(dict.fromkeys(problems))
                            + f" (Settings: {', '.join(known)}.)")
    assert model is not None
    return {k: v for k, v in model.model_dump(mode="json").items() if k in data}


def _problem(game: Game[Any], name: str, value: Any, message: str) -> str:
    """One sentence: which setting, what was given, what it accepts."""
    if name not in game.settings_model.model_fields:
        return f"{_shown(name or '?')} is not a setting of {game.title}."
    return (f"{_shown(f'{name}={_text(value)}')} is not allowed: {name} must be "
            f"{setting_words(game, name)}.")


def _text(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def _shown(text: str) -> str:
    """What a host typed, repeated: in code style when it holds no markup, else through the
    renderer of foreign text (a backtick of its own would end the code span)."""
    text = text if len(text) <= 40 else text[:37] + "..."
    if "`" not in text and text.isprintable():
        return f"`{text}`"  # (nothing in a code span is markup)
    return escape(text, 80)


def _foreign_strings(value: Any) -> list[str]:
    """Every text inside a setting's value (a list of puzzle names, say)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _foreign_strings(v)]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _foreign_strings(v)]
    return []
