"""Buttons and select menus for the decisions a message asks for.

Restart-proof: the items are `DynamicItem`s registered on the bot, their custom ids carry the
match id, the prompt key and the choice, so a click after a restart still finds its match.
A click submits a text through the service exactly as if the player had typed it where the
message is; a click on a decision that is no longer pending is refused.

Items (custom ids):
- `ChoiceButton` `ump:b:<match>:<index>:<key>` / `ChoiceSelect` `ump:s:<match>:<key>`: choice
  `index` of the prompt's `choices`.
- `OrderedSelect` `ump:o:<match>:<count>:<picked,...>:<key>`: pick `count` options one after
  the other (reveal order); each pick but the last answers with a private (ephemeral) menu of
  the remaining options, the last submits the picked values joined by spaces.
- `MultiSelect` `ump:m:<match>:<verb>:<key>`: pick several values at once (order irrelevant);
  submits `<verb> <values...>`.
- `PrivateButton` `ump:p:<match>:<verb>:<key>`: a button in the public room that answers the
  clicker privately with a menu built from their own view (the game's `private_options`
  hook), so a public decision over a secret (a letter of your hand) needs no typing and
  leaks nothing; the menu submits `<verb> <value>`.

Games declare their own layout as plain controls (`Controls.rows`, `games.core.controls`),
each of which becomes one of these items (`component`); without one, a prompt gets one row:
buttons for a few short choices, else a select menu (<= 25).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.discord.answer import acknowledged, answering, wait_for_post
from bot.discord.games import STYLES, hooks_for
from bot.discord.gate import GatedItem
from bot.discord.render import player_id
from games.core.controls import Button, Control, InOrder, Menu, Private, Several

if TYPE_CHECKING:
    from bot.discord.client import UmpireBot
    from bot.live import LiveMatch

log = logging.getLogger(__name__)

MAX_ROWS = 5
MAX_OPTIONS = 25
BUTTONS_PER_ROW = 5
Style = discord.ButtonStyle


@dataclass(frozen=True)
class PromptContext:
    """One decision a message asks for, as a game hook sees it when the message is sent."""

    match_id: int
    prompt: dict[str, Any]  # the outbox payload: key, seat, kind, choices, deadline
    #: The running match while this decision is still pending (so its state is the one the
    #: decision was asked in), else None (a late delivery of a stale decision).
    live: LiveMatch | None

    @property
    def key(self) -> str:
        return str(self.prompt["key"])

    @property
    def choices(self) -> list[str]:
        return list(self.prompt.get("choices") or [])

    def button(self, choice: str, label: str | None = None,
               style: Style = Style.primary) -> ChoiceButton:
        """A button submitting one of the prompt's choices (by its index)."""
        return ChoiceButton(self.match_id, self.key, self.choices.index(choice),
                            (label or choice)[:80], style=style)


def pending(live: LiveMatch | None, key: str) -> LiveMatch | None:
    return live if live is not None and live.prompt_pending(key) else None


def _button_id(match_id: int, key: str, index: int) -> str:
    return f"ump:b:{match_id}:{index}:{key}"


def _select_id(match_id: int, key: str) -> str:
    return f"ump:s:{match_id}:{key}"


def default_rows(ctx: PromptContext, game: str) -> list[list[discord.ui.Item[Any]]]:
    """Buttons for a few short choices (up to `max_buttons`, 5 a row), else a select menu."""
    hooks = hooks_for(game)
    choices = ctx.choices[:MAX_OPTIONS]
    if not choices:
        return []
    labels = [hooks.label(c)[:80] or c[:80] for c in choices]
    if len(choices) <= hooks.max_buttons and all(len(x) <= hooks.short_label for x in labels):
        buttons: list[discord.ui.Item[Any]] = [ChoiceButton(ctx.match_id, ctx.key, i, label, style=hooks.style(choices[i]))
                   for i, label in enumerate(labels)]
        return [buttons[i:i + BUTTONS_PER_ROW] for i in range(0, len(buttons), BUTTONS_PER_ROW)]
    return [[ChoiceSelect(ctx.match_id, ctx.key, labels)]]


def build_view(match_id: int, game: str, prompts: Sequence[dict[str, Any]],
               live: LiveMatch | None = None) -> discord.ui.View | None:
    """The rows of every prompt of a message (the game's `components` hook, else the default),
    as long as they fit in Discord's five rows."""
    hooks = hooks_for(game)
    view = discord.ui.View(timeout=None)
    used = 0
    for prompt in prompts:
        key = str(prompt["key"])
        if len(_select_id(match_id, key)) > 70:  # room for the longest custom id prefix
            continue
        ctx = PromptContext(match_id, prompt, pending(live, key))
        declared = _safely(hooks.rows, ctx)
        rows = default_rows(ctx, game) if declared is None else \
            [[component(ctx, control) for control in row] for row in declared]
        rows = [r for r in rows if r]
        if used + len(rows) > MAX_ROWS:
            continue
        for row in rows:
            for item in row:
                item.row = used
                view.add_item(item)
            used += 1
    return view if used else None


def notes_for(match_id: int, game: str, prompts: Sequence[dict[str, Any]],
              live: LiveMatch | None, status: str | None) -> list[str]:
    """The game's helper notes for a message: per prompt (`note`), then the game's status
    line as of the message's moment (stored with it, `Game.status`)."""
    hooks = hooks_for(game)
    out: list[str] = []
    if hooks.note is not None:
        for prompt in prompts:
            ctx = PromptContext(match_id, prompt, pending(live, str(prompt["key"])))
            text = _safely(hooks.note, ctx)
            if text:
                out.append(text)
    if status:
        out.append(status)
    return out


def component(ctx: PromptContext, control: Control) -> discord.ui.Item[Any]:
    """The component for one of a game's declared controls (`games.core.controls`)."""
    match control:
        case Button(choice=choice, label=label, tone=tone):
            return ctx.button(choice, label or None, STYLES[tone])
        case Menu(labels=labels, placeholder=placeholder):
            return ChoiceSelect(ctx.match_id, ctx.key, labels, placeholder=placeholder)
        case InOrder(count=count, options=options, placeholder=placeholder):
            return OrderedSelect(ctx.match_id, ctx.key, count, options, placeholder=placeholder)
        case Several(verb=verb, options=options, count=count, placeholder=placeholder):
            return MultiSelect(ctx.match_id, ctx.key, verb, options, count=count,
                               placeholder=placeholder)
        case Private(verb=verb, label=label, tone=tone):
            return PrivateButton(ctx.match_id, ctx.key, verb, label, style=STYLES[tone])
    raise TypeError(f"not a control: {control!r}")


def _safely(hook: Any, *args: Any) -> Any:
    """A game hook's result, or None if it failed (a helper never stops a delivery)."""
    try:
        return hook(*args)
    except Exception:
        log.exception("Discord hook %s failed", getattr(hook, "__name__", hook))
        return None


# --- items ----------------------------------------------------------------------------------
class ChoiceButton(GatedItem, discord.ui.DynamicItem[discord.ui.Button[Any]],
                   template=r"ump:b:(?P<match>\d+):(?P<index>\d+):(?P<key>.+)"):
    def __init__(self, match_id: int, key: str, index: int, label: str = "?", *,
                 row: int | None = None, style: Style = Style.primary) -> None:
        super().__init__(discord.ui.Button(label=label, style=style,
                                           custom_id=_button_id(match_id, key, index), row=row))
        self.match_id, self.key, self.index = match_id, key, index

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Button[Any], match: re.Match[str]) -> ChoiceButton:  # type: ignore[override]  # (its own item)
        return cls(int(match["match"]), match["key"], int(match["index"]), item.label or "?")

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        await choose(interaction, self.match_id, self.key, self.index)


def _options(labels: Sequence[str]) -> list[discord.SelectOption]:
    return [discord.SelectOption(label=label[:100], value=str(i))
            for i, label in enumerate(labels)] or [discord.SelectOption(label="?")]


class ChoiceSelect(GatedItem, discord.ui.DynamicItem[discord.ui.Select[Any]],
                   template=r"ump:s:(?P<match>\d+):(?P<key>.+)"):
    def __init__(self, match_id: int, key: str, labels: Sequence[str] = (), *,
                 row: int | None = None, placeholder: str = "Choose…") -> None:
        super().__init__(discord.ui.Select(custom_id=_select_id(match_id, key),
                                           options=_options(labels), placeholder=placeholder,
                                           row=row))
        self.match_id, self.key = match_id, key

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Select[Any], match: re.Match[str]) -> ChoiceSelect:  # type: ignore[override]  # (its own item)
        return cls(int(match["match"]), match["key"])

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        if not values or not values[0].isdigit():
            await ack(interaction)
            await tell(interaction, "Pick one of the options.")
            return
        await choose(interaction, self.match_id, self.key, int(values[0]))


Option = tuple[str, str]  # (label, value)


def _value_options(options: Sequence[Option]) -> list[discord.SelectOption]:
    return [discord.SelectOption(label=label[:100], value=value[:100])
            for label, value in options[:MAX_OPTIONS]] or [discord.SelectOption(label="?")]


class OrderedSelect(GatedItem, discord.ui.DynamicItem[discord.ui.Select[Any]],
                    template=r"ump:o:(?P<match>\d+):(?P<count>\d):(?P<picked>[^:]*):(?P<key>.+)"):
    """Pick `count` options in order: the first menu sits on the decision's message; each
    later one is answered privately to the clicker, its custom id carrying the picks so far."""

    def __init__(self, match_id: int, key: str, count: int, options: Sequence[Option] = (), *,
                 picked: Sequence[str] = (), placeholder: str = "Choose…",
                 row: int | None = None) -> None:
        custom_id = f"ump:o:{match_id}:{count}:{','.join(picked)}:{key}"
        super().__init__(discord.ui.Select(custom_id=custom_id, options=_value_options(options),
                                           placeholder=placeholder[:150], row=row))
        self.match_id, self.key, self.count, self.picked = match_id, key, count, list(picked)

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Select[Any], match: re.Match[str]) -> OrderedSelect:  # type: ignore[override]  # (its own item)
        picked = [p for p in match["picked"].split(",") if p]
        out = cls(int(match["match"]), match["key"], int(match["count"]), picked=picked)
        out.item.options = list(item.options)
        return out

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        labels = {o.value: o.label for o in self.item.options}
        if not values or values[0] in self.picked:
            await ack(interaction)
            await tell(interaction, "Pick one of the options.")
            return
        picked = [*self.picked, values[0]]
        so_far = ", then ".join(labels.get(v, v) for v in picked)
        if len(picked) < self.count:
            bot: UmpireBot = interaction.client
            await acknowledged(bot, interaction, self.match_id)  # (the last pick's move follows)
            rest = [(o.label, o.value) for o in self.item.options if o.value not in picked]
            view = discord.ui.View(timeout=None)
            n = len(picked) + 1
            view.add_item(OrderedSelect(self.match_id, self.key, self.count, rest, picked=picked,
                                        placeholder=f"Card {n} (revealed {_ordinal(n)})…"))
            await tell(interaction,
                       f"So far: {so_far}. Now pick the {_ordinal(n)} (only you see this).",
                       view=view)
            return
        await submit_text(interaction, self.match_id, self.key, " ".join(picked),
                          done=f"Submitted: {so_far}.")


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"#{n}")


class MultiSelect(GatedItem, discord.ui.DynamicItem[discord.ui.Select[Any]],
                  template=r"ump:m:(?P<match>\d+):(?P<verb>[a-z ]*):(?P<key>.+)"):
    """Pick several values at once; submits `<verb> <values...>`."""

    def __init__(self, match_id: int, key: str, verb: str, options: Sequence[Option] = (), *,
                 count: int = 1, placeholder: str = "Choose…", row: int | None = None) -> None:
        super().__init__(discord.ui.Select(
            custom_id=f"ump:m:{match_id}:{verb}:{key}", options=_value_options(options),
            min_values=count, max_values=count, placeholder=placeholder[:150], row=row))
        self.match_id, self.key, self.verb = match_id, key, verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Select[Any], match: re.Match[str]) -> MultiSelect:  # type: ignore[override]  # (its own item)
        out = cls(int(match["match"]), match["key"], match["verb"])
        out.item.options = list(item.options)
        return out

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        values = list(self.item.values)
        if not values:
            await ack(interaction)
            await tell(interaction, "Pick from the options.")
            return
        labels = {o.value: o.label for o in self.item.options}
        text = " ".join([self.verb, *values]).strip()
        await submit_text(interaction, self.match_id, self.key, text,
                          done=f"Submitted: {self.verb} {' '.join(labels.get(v, v) for v in values)}.")


class PrivateButton(GatedItem, discord.ui.DynamicItem[discord.ui.Button[Any]],
                    template=r"ump:p:(?P<match>\d+):(?P<verb>[a-z ]*):(?P<key>.+)"):
    """A public button answered with a private menu of the clicker's own options."""

    def __init__(self, match_id: int, key: str, verb: str, label: str = "Choose…", *,
                 style: Style = Style.secondary, row: int | None = None) -> None:
        super().__init__(discord.ui.Button(label=label[:80], style=style, row=row,
                                           custom_id=f"ump:p:{match_id}:{verb}:{key}"))
        self.match_id, self.key, self.verb = match_id, key, verb

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any],
                             item: discord.ui.Button[Any], match: re.Match[str]) -> PrivateButton:  # type: ignore[override]  # (its own item)
        return cls(int(match["match"]), match["key"], match["verb"], item.label or "?")

    async def handle(self, interaction: discord.Interaction[Any]) -> None:
        bot: UmpireBot = interaction.client
        await acknowledged(bot, interaction, self.match_id)  # (the menu's move follows it)
        live = bot.api.live(self.match_id)  # (the gate checked the clicker's seat)
        hooks = hooks_for(live.game.slug) if live is not None else None
        if live is None or hooks is None:
            await tell(interaction, "Type your move instead.")
            return
        seat = live.seat_of(player_id(interaction.user.id))
        assert seat is not None  # (the gate checked the clicker's seat)
        prompt = next(p for p in live.prompts if p.key == self.key)
        options = hooks.private_options(live, prompt, seat)
        if not options:
            await tell(interaction, "Nothing to choose; type your move.")
            return
        view = discord.ui.View(timeout=None)
        view.add_item(MultiSelect(self.match_id, self.key, self.verb, options, count=1,
                                  placeholder=self.item.label or "Choose…"))
        await tell(interaction, "Only you see this menu:", view=view)


DYNAMIC_ITEMS = (ChoiceButton, ChoiceSelect, OrderedSelect, MultiSelect, PrivateButton)


# --- submitting -------------------------------------------------------------------------------
async def choose(interaction: discord.Interaction[Any], match_id: int, key: str,
                 index: int) -> None:
    """A click on a choice: refuse it if stale or not the clicker's, else submit its text.
    The click is answered in its interaction where it may be (bot/discord/answer.py);
    otherwise it is acknowledged at once."""
    bot: UmpireBot = interaction.client
    await _submit(interaction, match_id, f"choice {match_id}/{key}/{index}",
                  lambda: bot.routing.submit_choice(interaction.user.id, interaction.channel_id,
                                                    match_id, key, index, interaction.guild_id))


async def submit_text(interaction: discord.Interaction[Any], match_id: int, key: str, text: str,
                      *, done: str) -> None:
    """A menu's text for decision `key`: submitted as typed where the menu is. A menu on a
    message of the channel is answered like a choice; on a private (ephemeral) menu, success
    replaces the menu with `done` (the posts that follow answer the click that opened it)."""
    bot: UmpireBot = interaction.client
    message = interaction.message
    ephemeral = message is not None and message.flags.ephemeral
    accepted = await _submit(
        interaction, match_id, f"menu {match_id}/{key}",
        lambda: bot.routing.submit_text(interaction.user.id, interaction.channel_id, match_id,
                                        key, text, interaction.guild_id))
    if accepted and ephemeral:
        await interaction.edit_original_response(content=done, view=None)


async def _submit(interaction: discord.Interaction[Any], match_id: int, what: str,
                  submit: Callable[[], Awaitable[tuple[str, bool]]]) -> bool:
    """Submit a click's move while it may be answered by its channel's next post; tell the
    clicker privately why it was refused. Whether it was accepted."""
    bot: UmpireBot = interaction.client
    async with answering(bot, interaction, match_id) as answer:
        try:
            refusal, accepted = await submit()
        except Exception:
            log.exception("%s failed", what)
            refusal, accepted = ("Something went wrong on the umpire's side; type your move "
                                 "instead.", False)
        if accepted:
            await wait_for_post(bot, answer, match_id)
        elif answer is not None:
            answer.stop()  # nothing follows from a refused click
    if not accepted:
        await tell(interaction, refusal)
    return accepted


async def ack(interaction: discord.Interaction[Any]) -> None:
    """Acknowledge a click at once (no visible change), before any work: Discord fails an
    interaction not acknowledged within three seconds, even if the move was applied."""
    if not interaction.response.is_done():
        await interaction.response.defer()


async def tell(interaction: discord.Interaction[Any], text: str, **kwargs: Any) -> None:
    """An answer only the clicker sees, after `ack`."""
    try:
        await interaction.followup.send(text, ephemeral=True, **kwargs)
    except discord.HTTPException as exc:
        log.warning("could not answer a click: %s", exc)
