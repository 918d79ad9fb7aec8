"""Per-game Discord hooks: adding a game's Discord touches is adding one module here.

A module `bot/discord/games/<slug with underscores>.py` may define `HOOKS = GameHooks(...)`.
Every game works without one: text moves, generic choice buttons and select menus, and the
first part of `docs/rules/<slug>.md` as its rules summary.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord

if TYPE_CHECKING:
    from bot.discord.components import Option, PromptContext
    from bot.live import LiveMatch
    from games.core import Prompt

RULES_DIR = Path(__file__).resolve().parents[3] / "docs" / "rules"


def rules_page(slug: str) -> str | None:
    """The game's rules page: `docs/rules/<slug>.md` in a checkout, else the copy an
    installed package carries (`games/<package>/rules.md`, written by setup.py's build)."""
    page = RULES_DIR / f"{slug}.md"
    if page.is_file():
        return page.read_text(encoding="utf-8")
    from importlib.resources import files

    try:
        shipped = files(f"games.{slug.replace('-', '_')}").joinpath("rules.md")
        return shipped.read_text(encoding="utf-8") if shipped.is_file() else None
    except (ModuleNotFoundError, OSError):
        return None


def _same(choice: str) -> str:
    return choice


def _primary(choice: str) -> discord.ButtonStyle:
    return discord.ButtonStyle.primary


@dataclass(frozen=True)
class GameHooks:
    """What a game may customise on Discord (everything has a default)."""

    slug: str
    #: A few lines shown at the top of /rules.
    summary: str = ""
    #: The label of a button / menu option for a choice text (the text itself is submitted).
    label: Callable[[str], str] = field(default=_same)
    #: Up to this many choices (each at most `short_label` characters) become buttons;
    #: more become a select menu.
    max_buttons: int = 5
    short_label: int = 25
    #: The colour of a choice's button.
    style: Callable[[str], discord.ButtonStyle] = field(default=_primary)
    #: Rows of items for one decision (see `bot.discord.components`), or None for the
    #: default buttons / menu. `ctx.live` is None when the decision is no longer pending.
    components: Callable[[PromptContext], list[list[Any]] | None] | None = None
    #: A helper note for one decision, shown under its message (an embed); None for none.
    #: It goes to the decision's audience: secrets only in a private decision's note.
    note: Callable[[PromptContext], str | None] | None = None
    #: (label, value) options a `PrivateButton` shows privately to the player of `seat`.
    private_options: Callable[[LiveMatch, Prompt, int], list[Option]] | None = None

    def rules_text(self, limit: int = 1800) -> str:
        """The summary, then the start of the game's rules page, cut at a paragraph."""
        parts = [self.summary.strip()] if self.summary else []
        body = rules_page(self.slug)
        if body is not None:
            room = limit - sum(len(p) + 2 for p in parts) - 60
            if room > 200:
                cut = body[:room]
                if len(body) > room:
                    cut = cut[:cut.rfind("\n\n")] if "\n\n" in cut else cut
                    cut += f"\n\n… (the whole page: `docs/rules/{self.slug}.md`)"
                parts.append(cut)
        return "\n\n".join(parts) or f"No rules summary for {self.slug}."


@cache
def hooks_for(slug: str) -> GameHooks:
    module_name = f"{__name__}.{slug.replace('-', '_')}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        return GameHooks(slug=slug)
    hooks = getattr(module, "HOOKS", None)
    return hooks if isinstance(hooks, GameHooks) else GameHooks(slug=slug)
