"""A game's Discord touches, read from its contract (`Game.controls`, `Game.rules_page`).

Nothing here knows a game by name: labels, colours, layouts, notes and the /rules summary
are what the game declares (`games.core.controls`), so adding a game adds nothing here.
The hooks see a decision through its audience's view (`asked`), never the state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import discord

from games.core.contract import Controls, Game
from games.core.controls import Asked, Control, Option, Tone
from games.registry import get_game

if TYPE_CHECKING:
    from bot.discord.components import PromptContext
    from bot.live import LiveMatch
    from games.core import Prompt

#: A declared tone's button style (read-only: the layer keeps no mutable module state).
STYLES: Mapping[Tone, discord.ButtonStyle] = MappingProxyType({
    Tone.PRIMARY: discord.ButtonStyle.primary, Tone.SECONDARY: discord.ButtonStyle.secondary,
    Tone.SUCCESS: discord.ButtonStyle.success, Tone.DANGER: discord.ButtonStyle.danger})


def asked(ctx: PromptContext) -> Asked:
    """The decision of `ctx` as the game's hooks see it: with the view of the message's
    audience (the seat's in its table channel, a spectator's in the room) while it is
    pending."""
    view = None
    live = ctx.live
    prompt = None if live is None else next((p for p in live.prompts if p.key == ctx.key), None)
    if live is not None and prompt is not None:
        view = live.game.view(live.state, prompt.seat if prompt.private else None)
    return Asked(key=ctx.key, seat=int(ctx.prompt["seat"]), kind=str(ctx.prompt.get("kind")),
                 choices=tuple(ctx.choices), view=view)


@dataclass(frozen=True)
class GameHooks:
    """A game's declared controls, in Discord's terms."""

    game: Game[Any]

    @property
    def controls(self) -> Controls:
        return type(self.game).controls

    @property
    def slug(self) -> str:
        return self.game.slug

    @property
    def label(self) -> Callable[[str], str]:
        return self.controls.label

    @property
    def max_buttons(self) -> int:
        return self.controls.max_buttons

    @property
    def short_label(self) -> int:
        return self.controls.short_label

    def style(self, choice: str) -> discord.ButtonStyle:
        return STYLES[self.controls.tone(choice)]

    def rows(self, ctx: PromptContext) -> list[list[Control]] | None:
        """The game's layout for one decision, None for the default buttons or menu."""
        rows = self.controls.rows
        return None if rows is None else rows(asked(ctx))

    def note(self, ctx: PromptContext) -> str | None:
        note = self.controls.note
        return None if note is None else note(asked(ctx))

    def private_options(self, live: LiveMatch, prompt: Prompt, seat: int | None) -> list[Option]:
        """The options of a private menu, from the clicker's own view."""
        options = self.controls.private_options
        if options is None:
            return []
        return options(Asked(key=prompt.key, seat=prompt.seat, kind=prompt.kind,
                             choices=prompt.choices, view=live.game.view(live.state, seat)))

    def rules_text(self, limit: int = 1800) -> str:
        """The summary, then the start of the game's rules page, cut at a paragraph."""
        summary = self.controls.summary.strip()
        parts = [summary] if summary else []
        body = self.game.rules_page()
        if body is not None:
            room = limit - sum(len(p) + 2 for p in parts) - 60
            if room > 200:
                cut = body[:room]
                if len(body) > room:
                    cut = cut[:cut.rfind("\n\n")] if "\n\n" in cut else cut
                    cut += f"\n\n… (the whole page: `docs/rules/{self.slug}.md`)"
                parts.append(cut)
        return "\n\n".join(parts) or f"No rules summary for {self.slug}."


def hooks_for(slug: str) -> GameHooks:
    """The Discord touches of the game `slug` (any registered game)."""
    return GameHooks(get_game(slug))
