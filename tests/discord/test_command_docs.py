"""docs/discord.md documents every command the bot registers, with an example of use.

The bot's own command tree is walked (after `setup_hook`, as on Discord): every slash
command and subcommand must appear as `/name` and have an example line starting with it;
every option must be named in the docs (an example's `option:`, the command's signature line
or a backticked `option`); every restart-proof button or menu the bot registers must be named
too. A command added without its documentation fails here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from discord import app_commands

from tests.discord.conftest import World, umpire

DOC = Path(__file__).resolve().parents[2] / "docs" / "discord.md"


def leaves(tree: app_commands.CommandTree[Any]) -> list[app_commands.Command[Any, ..., Any]]:
    """Every invocable slash command (subcommands of groups included)."""
    return [c for c in tree.walk_commands() if isinstance(c, app_commands.Command)]


def problems_in(text: str, commands: list[app_commands.Command[Any, ..., Any]],
                items: list[type]) -> list[str]:
    """What the docs miss: a command, its example, an option, a component."""
    lines = text.splitlines()
    missing = []
    for command in commands:
        name = f"/{command.qualified_name}"
        mentions = [line for line in lines
                    if re.search(re.escape(name) + r"(?![\w-])", line)]
        if not mentions:
            missing.append(f"{name}: not documented")
            continue
        # An example: a line of a code block, or a code span, that starts with the command
        # and gives every required option a value (`option:value`), no `[optional]` marks.
        spans = [line.strip() for line in lines] + re.findall(r"`([^`\n]+)`", text)
        required = [p.display_name for p in command.parameters if p.required]
        examples = [e for e in spans if re.match(re.escape(name) + r"(?![\w-])", e)
                    and "[" not in e and all(f"{r}:" in e for r in required)]
        if not examples:
            missing.append(f"{name}: no example of use (`{name}` with every required "
                           "option given a value)")
        for param in command.parameters:
            opt = param.display_name
            said = (any(re.search(rf"\b{re.escape(opt)}:", e) for e in examples)
                    or any(re.search(rf"\b{re.escape(opt)}\b", m) for m in mentions)
                    or f"`{opt}`" in text)
            if not said:
                missing.append(f"{name}: option `{opt}` not documented")
    for item in items:
        if item.__name__ not in text:
            missing.append(f"component {item.__name__} not documented")
    return missing


async def test_docs_discord_md_documents_every_registered_command_option_and_component(
        world: World) -> None:
    async with umpire(world) as up:
        tree = up.bot.tree
        commands = leaves(tree)
        items = list(up.bot._connection._view_store._dynamic_items.values())
        synced = world.fake.commands[None]
    # The walk is the command set Discord received (no command left out of the check).
    names = set()
    for c in synced:
        subs = [o["name"] for o in c.data.get("options", []) if o.get("type") == 1]
        names |= {f"{c.name} {s}" for s in subs} or {c.name}
    assert {c.qualified_name for c in commands} == names
    assert len(commands) >= 20 and len(items) >= 7
    missing = problems_in(DOC.read_text(encoding="utf-8"), commands, items)
    assert missing == [], "docs/discord.md misses:\n" + "\n".join(missing)


async def test_the_docs_check_can_fail(world: World) -> None:
    """The same check on the docs without the `/leaderboard` lines finds it missing."""
    async with umpire(world) as up:
        commands = leaves(up.bot.tree)
    text = "\n".join(line for line in DOC.read_text(encoding="utf-8").splitlines()
                     if "/leaderboard" not in line)
    assert "/leaderboard: not documented" in problems_in(text, commands, [])
    full = DOC.read_text(encoding="utf-8")
    assert "/umpire settings: option `archive_delay` not documented" in problems_in(
        full.replace("archive_delay", "archive delay"), commands, [])
    unexampled = "\n".join(line for line in full.splitlines() if "/history member:" not in line)
    assert any(p.startswith("/history: no example") for p in problems_in(
        unexampled.replace("`/history`", "history"), commands, []))
