"""Settings: defaults here, overridden by config.toml, overridden by the environment.

Environment variables use the prefix UMPIRE_ and `__` between section and key
(UMPIRE_DATABASE__URL, UMPIRE_DISCORD__HOST_ROLE); the Discord token may also come from
DISCORD_TOKEN, the usual name. config.example.toml documents every setting.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from datetime import timedelta
from pathlib import Path
from types import UnionType
from typing import Any, Literal, Union, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel, Field, SecretStr, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

DEFAULT_CONFIG_FILE = "config.toml"


class DatabaseSettings(BaseModel):
    url: str | None = Field(
        None,
        description="A file path (umpire.db) or a URL: sqlite:///path.db, "
        "postgresql://user:pass@host/db (postgres:// too; the async drivers are added). "
        "Unset: ~/.local/share/umpire/umpire.db ($XDG_DATA_HOME/umpire/umpire.db), the one "
        "file every command uses",
    )
    snapshot_every: int = Field(25, ge=1, description="Store a state snapshot every N actions.")
    echo: bool = Field(False, description="Log every SQL statement (debugging).")
    outbox_retention_days: float = Field(
        30.0, ge=0, description="Delete outbox messages delivered more than this many days "
        "ago (hourly, and on `umpire vacuum`); 0 keeps them forever. A match's export lists "
        "only the messages still kept; its actions are kept forever.")

    store_wait_seconds: float = Field(
        5.0, gt=0, le=60, description="How long a move waits for an SQLite file another "
        "process holds locked (a backup, `umpire vacuum`) before it is refused and the player "
        "asked to send it again. Other matches play on meanwhile.")

    @property
    def outbox_retention(self) -> timedelta | None:
        return timedelta(days=self.outbox_retention_days) if self.outbox_retention_days else None


class DiscordSettings(BaseModel):
    token: SecretStr | None = Field(None, description="Bot token (or set DISCORD_TOKEN).")
    command_prefix: str = Field("!", description="Prefix for text commands (slash also works).")
    host_role: str = Field("Umpire Host", description="Default host role *name* for servers "
                           "that set no host role with /umpire settings (there it is matched "
                           "by id). Members with it (or Manage Server) may run matches.")
    log_channel: str = Field("umpire-log", description="Default host log channel name for "
                             "servers that set no log channel with /umpire settings: every "
                             "secret is posted there as it happens.")
    category_prefix: str = Field("match", description="Name prefix of the categories the bot "
                                 "makes: threads mode '<prefix> rooms', channels mode "
                                 "'<prefix> <player> vs <player>'.")
    delete_private_in_public: bool = Field(True, description="Delete a private move typed in "
                                           "the public room (needs Manage Messages).")
    sync_commands: bool = Field(True, description="Sync slash commands globally once per "
                                "bot version (the synced version is kept in the database).")
    dev_guilds: list[int] = Field(default_factory=list, description="Server ids that get the "
                                  "slash commands synced to them on every start (development: "
                                  "per-server commands update at once).")
    friendly_matches: bool = Field(False, description="Default for servers that set nothing: "
                                   "whether players may start friendly matches without a host.")
    channel_mode: Literal["threads", "channels"] = Field(
        "threads", description="Default for servers that set nothing: tables as private "
        "threads in the game room (where the bot may create them, else channels), or as "
        "channels.")
    archive_delay_minutes: int = Field(60, ge=0, le=10080, description="Default for servers "
                                       "that set nothing: minutes after a match ends before "
                                       "its channels are archived.")
    game_settings: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Default per-game match settings (timers...) for "
        "servers that set nothing, by game slug: {rps-poker = {decision_seconds = 60}}.")
    challenge_cooldown_seconds: int = Field(60, ge=0, le=86400, description="Default for "
                                            "servers that set nothing: seconds a member waits "
                                            "between two /challenge commands.")
    read_cooldown_seconds: float = Field(10.0, ge=0, description="Seconds a member waits, "
                                         "in a channel, between two commands that make the bot "
                                         "post or edit there (/board, /tournament show...), and "
                                         "between two uses of each read (/history, "
                                         "/leaderboard): 0 for none.")
    refusal_cooldown_seconds: float = Field(5.0, ge=0, description="After a refusal of a "
                                            "typed move in a player's table (typed there or in "
                                            "the game room), further refusals to them there are "
                                            "not sent for this long (flood guard).")


class ClockSettings(BaseModel):
    heartbeat_seconds: float = Field(1.0, gt=0, description="How often the service records "
                                     "that it is alive; downtime is measured from the last beat.")


class ShardSettings(BaseModel):
    count: int = Field(1, ge=1, description="How many shards the servers are split into "
                       "(Discord's formula: (server id >> 22) % count). 1: one process "
                       "umpires everything, no leases. More: run one process per shard (or "
                       "a few) on one PostgreSQL database; each owns its shards through a "
                       "lease and takes over a dead process's shards.")
    ids: list[int] = Field(default_factory=list, description="The shards this process "
                           "takes on start (each in 0..count-1); empty: all of them.")
    lease_seconds: float = Field(15.0, gt=0, description="A shard lease lasts this long "
                                 "unless renewed (every heartbeat); a process silent for "
                                 "longer loses its shards to another.")

    @model_validator(mode="after")
    def _ids_in_range(self) -> ShardSettings:
        wrong = [i for i in self.ids if not 0 <= i < self.count]
        if wrong:
            raise ValueError(f"shard ids {wrong} are not in 0..{self.count - 1}")
        return self

    @property
    def enabled(self) -> bool:
        return self.count > 1

    @property
    def preferred(self) -> set[int]:
        """The shards this process takes on start."""
        return set(self.ids) if self.ids else set(range(self.count))


class BotPlayerSettings(BaseModel):
    think_seconds: float = Field(1.0, ge=0, description="Pause before a built-in bot moves "
                                 "in a match with people (0 in demos).")


class HealthSettings(BaseModel):
    status_file: str = Field("", description="Where `umpire run` writes its status every few "
                             "seconds for `umpire health` (the container's HEALTHCHECK); "
                             "empty: umpire-status.json in the temporary folder.")


class MetricsSettings(BaseModel):
    port: int = Field(0, ge=0, le=65535, description="Serve Prometheus metrics on this port "
                      "(http://host:PORT/metrics; needs the prometheus-client package); "
                      "0: no metrics.")
    address: str = Field("0.0.0.0", description="The address the metrics port listens on.")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="UMPIRE_", env_nested_delimiter="__", extra="ignore",
        toml_file=DEFAULT_CONFIG_FILE,
    )

    database: DatabaseSettings = DatabaseSettings()
    discord: DiscordSettings = DiscordSettings()
    clock: ClockSettings = ClockSettings()
    bots: BotPlayerSettings = BotPlayerSettings()
    shards: ShardSettings = ShardSettings()
    health: HealthSettings = HealthSettings()
    metrics: MetricsSettings = MetricsSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_path = os.environ.get("UMPIRE_CONFIG", DEFAULT_CONFIG_FILE)
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=Path(toml_path)),
        )

    def model_post_init(self, context: Any) -> None:
        token = os.environ.get("DISCORD_TOKEN")
        if self.discord.token is None and token:
            self.discord.token = SecretStr(token)


class ConfigError(ValueError):
    """A mistake in the settings, as one sentence naming the file (or variable) and key."""


def load_settings(config_file: str | None = None, **overrides: Any) -> Settings:
    """Settings from `config_file` (default config.toml, or $UMPIRE_CONFIG) and the environment.

    Raises ConfigError for a named file that does not exist, a file that is not TOML, an
    unknown section or key (with the nearest valid name), or a value of the wrong kind."""
    named = config_file or os.environ.get("UMPIRE_CONFIG")
    path = Path(named or DEFAULT_CONFIG_FILE)
    origin = "--config" if config_file else "UMPIRE_CONFIG"
    if named and not path.is_file():
        what = "is a folder" if path.is_dir() else "does not exist"
        raise ConfigError(f"{path}: the config file given by {origin} {what}.")
    if path.is_file():
        try:
            with path.open("rb") as f:
                check_names(tomllib.load(f), str(path))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc}).") from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot be read ({exc.strerror}).") from None
    _check_environment()
    previous = os.environ.get("UMPIRE_CONFIG")
    os.environ["UMPIRE_CONFIG"] = str(path)  # read by settings_customise_sources
    try:
        return Settings(**overrides)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, str(path))) from None
    finally:
        if previous is None:
            os.environ.pop("UMPIRE_CONFIG", None)
        else:
            os.environ["UMPIRE_CONFIG"] = previous


def _nearest(name: str, valid: list[str]) -> str:
    close = difflib.get_close_matches(name, valid, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"{hint}valid: {', '.join(valid)}"


def check_names(data: dict[str, Any], source: str) -> None:
    """Refuse unknown sections and keys (a typo would otherwise be silently ignored)."""
    sections = list(Settings.model_fields)
    for section, body in data.items():
        if section not in sections:
            raise ConfigError(f"{source}: unknown section [{section}] ({_nearest(section, sections)}).")
        model = Settings.model_fields[section].annotation
        keys = list(model.model_fields)  # type: ignore[union-attr]  # (every section is a settings model)
        if not isinstance(body, dict):
            raise ConfigError(f"{source}: {section} must be a section [{section}] with keys "
                              f"({', '.join(keys)}), not a single value.")
        for key in body:
            if key not in keys:
                raise ConfigError(f"{source}: unknown key {key!r} in [{section}] "
                                  f"({_nearest(key, keys)}).")


def _check_environment() -> None:
    """Refuse UMPIRE_SECTION__KEY variables that name no setting."""
    for name in os.environ:
        upper = name.upper()
        if upper.startswith("UMPIRE_") and "__" in upper:
            section, _, key = upper[len("UMPIRE_"):].lower().partition("__")
            try:
                check_names({section: {key: None}}, f"{name} (environment)")
            except ConfigError as exc:
                raise ConfigError(str(exc).replace(" in [", " of section [", 1)) from None


def allowed(section: str, key: str) -> str:
    """What a setting accepts, in words: "a whole number, at least 1"."""
    field = Settings.model_fields[section].annotation.model_fields[key]  # type: ignore[union-attr]  # (every section is a settings model)
    return field_words(field)


def field_words(field: FieldInfo, at_most: float | None = None,
                at_least: float | None = None) -> str:
    """What a pydantic field accepts, in words ("a number, more than 0, at most 86400");
    `at_most` and `at_least` add bounds the runtime applies where the model has none (or
    a looser upper one)."""
    kinds = {int: "a whole number", float: "a number", bool: "true or false", str: "text"}
    annotation = field.annotation
    origin = get_origin(annotation)
    args = [a for a in get_args(annotation) if a is not type(None)]
    if origin in (UnionType, Union) and len(args) == 1:  # optional: X or nothing
        annotation, origin = args[0], get_origin(args[0])
    if origin is Literal:
        kind = "one of " + ", ".join(repr(v) for v in get_args(annotation))
    elif origin in (list, tuple):
        item = (get_args(annotation) or (str,))[0]
        kind = f"a list of {kinds.get(item, 'text').removeprefix('a ')}s"
        if item in (int, float):
            kind = kind.replace("numbers", "numbers, each").replace("whole numbers",
                                                                      "whole numbers, each")
    elif origin is dict:
        kind = "a table of settings"
    else:
        kind = kinds.get(annotation, "text")  # type: ignore[arg-type]  # (a plain type here: the other forms were handled above)
    le = None
    if at_least is not None and not any(isinstance(r, Ge | Gt) for r in field.metadata):
        kind += f", at least {at_least}"
    for rule in field.metadata:
        if isinstance(rule, Ge):
            kind += f", at least {rule.ge}"
        elif isinstance(rule, Gt):
            kind += f", more than {rule.gt}"
        elif isinstance(rule, Le):
            le = rule.le
        elif isinstance(rule, Lt):
            kind += f", less than {rule.lt}"
    if at_most is not None and (le is None or at_most < le):  # type: ignore[operator]  # (annotated-types bounds are numbers here)
        le = at_most
    if le is not None:
        kind += f", at most {le:g}" if isinstance(le, float) else f", at most {le}"
    return kind.replace("each, ", "each ")


def _describe(exc: ValidationError, source: str) -> str:
    """The first validation error as one sentence naming where the value came from."""
    error = exc.errors()[0]
    loc = [str(x) for x in error["loc"]]
    if len(loc) >= 2 and loc[0] in Settings.model_fields:
        section, key = loc[0], loc[1]
        env = f"UMPIRE_{section}__{key}".upper()
        where = f"{env} (environment)" if any(k.upper() == env for k in os.environ) else \
            f"{source}: [{section}] {key}"
        try:
            expected = allowed(section, key)
        except KeyError:
            expected = error["msg"]
        return f"{where} = {error.get('input')!r} is not allowed: it must be {expected}."
    return f"{source}: {'.'.join(loc) or 'settings'}: {error['msg']}."
