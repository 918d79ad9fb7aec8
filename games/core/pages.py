"""Where a game's rules page is read from (`Game.rules_page`).

The one source is `docs/rules/<slug>.md`. A checkout reads it there; an installed package
(pip, the Docker image) has no docs/, so the build copies each page into its game's package
as `rules.md` (setup.py), and that copy is read instead. A game outside games/ (the test
suite's toy game) ships its page the same way: `rules.md` in its own package.
"""

from __future__ import annotations

import sys
from importlib.resources import files
from pathlib import Path

RULES_DIR = Path(__file__).resolve().parents[2] / "docs" / "rules"
SHIPPED = "rules.md"


def rules_page(slug: str, module: str) -> str | None:
    """The page of game `slug` whose class is defined in `module`: the checkout's copy,
    else the one its package ships; None when there is neither."""
    page = RULES_DIR / f"{slug}.md"
    if page.is_file():
        return page.read_text(encoding="utf-8")
    package = game_package(module)
    try:
        shipped = files(package).joinpath(SHIPPED)
        return shipped.read_text(encoding="utf-8") if shipped.is_file() else None
    except (ModuleNotFoundError, OSError):
        return None


def game_package(module: str) -> str:
    """The package a game's module belongs to (`games.decoder` for `games.decoder.engine`):
    where its shipped page sits."""
    loaded = sys.modules.get(module)
    package = getattr(loaded, "__package__", None)
    return package or module.rpartition(".")[0]
