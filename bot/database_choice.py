"""Which database a command uses: one answer for every command (run, run --check, health,
migrate, vacuum, matches, export, play, tournament and demo with --db).

In order: the command's --db; else the configured URL (`[database] url` in the config
file or UMPIRE_DATABASE__URL in the environment, the environment winning as it does for
every setting); else one default file, `$XDG_DATA_HOME/umpire/umpire.db`
(`~/.local/share/umpire/umpire.db`), the same whatever folder the command runs in.

Finding it changes nothing: the folder of the default file is made only by a command that
creates the database (`ensure_folder`), never by `health` or a read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The file name of the default database in the user's data folder.
DEFAULT_NAME = "umpire.db"


class OldDefaultFound(ValueError):
    """The default file does not exist yet but a file an older version used by default
    does: said in one sentence, so that a host's matches are never silently left behind."""


@dataclass(frozen=True)
class Choice:
    """The database a command uses, and where that answer came from."""

    db: str  # a path or URL, as `bot.store.database.database_url` takes it
    source: str  # "--db", "config" or "default"


def data_folder() -> Path:
    """$XDG_DATA_HOME/umpire, else ~/.local/share/umpire (not created here)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "umpire"


def default_file() -> Path:
    return data_folder() / DEFAULT_NAME


def old_defaults() -> list[Path]:
    """Files earlier versions used when nothing was configured: `umpire run` and `health`
    took ./umpire.db in the current folder, the local commands ~/.local/share/umpire/play.db."""
    return [Path.cwd() / "umpire.db", data_folder() / "play.db"]


def choose(settings: Any, db: str | None = None) -> Choice:
    """The database every command uses (see the module docstring). Raises OldDefaultFound
    when the default is taken but only an older default file exists."""
    if db:
        return Choice(db, "--db")
    url = getattr(getattr(settings, "database", None), "url", None)
    if url:
        return Choice(str(url), "config")
    default = default_file()
    if not default.exists():
        old = [path for path in old_defaults() if path.is_file()]
        if old:
            raise OldDefaultFound(_old_default_sentence(old, default))
    return Choice(str(default), "default")


def _old_default_sentence(old: list[Path], default: Path) -> str:
    files = " and ".join(str(path) for path in old)
    return (f"no database is configured, and the default one, {default}, does not exist yet, "
            f"but {files} (the default of an earlier version) does: move it there "
            f"(mv {old[0]} {default}), or name it with --db or [database] url "
            "(UMPIRE_DATABASE__URL) to keep using it where it is.")


def ensure_folder(choice: Choice) -> None:
    """Make the default file's folder (only the default's: a configured path's missing
    folder is the user's to fix, and is said so)."""
    if choice.source == "default":
        Path(choice.db).parent.mkdir(parents=True, exist_ok=True)
