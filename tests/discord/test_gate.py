"""The gate (bot/discord/gate.py) on the fake Discord: every registered command, component
and the typed-message path go through it (a new one that does not fails here), and what it
decides: a player never referees a match of her own event (issue 39, finding 1), a flood
gets one answer (finding 5: typed replies in a table, `/tournament show`, `/board`), and
three `/challenge` at the same instant ping once (finding 6)."""

from __future__ import annotations

import asyncio
import typing
from types import SimpleNamespace
from typing import Any

import discord
from discord.ext import commands

from bot.discord.components import (
    ChoiceButton,
    ChoiceSelect,
    MultiSelect,
    OrderedSelect,
    PrivateButton,
)
from bot.discord.friendly import ChallengeButton, RematchButton
from bot.discord.gate import ATTR, POST, REPLY, Gate, GatedItem, Need, need_of
from bot.tournament import store
from testbed.fake_discord import permissions as P
from testbed.fake_discord.models import Interaction, Message, User
from tests.discord.conftest import World, bot_posts, channel_of, start_rps, umpire
from tests.support.driver import drive

STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, NUMBER = 3, 4, 5, 6, 7, 8, 10
SUBCOMMAND, GROUP = 1, 2


async def answered(world: World, inter: Interaction) -> str:
    await world.fake.wait_for(lambda: inter.answer is not None and inter.finished, 10)
    assert inter.answer is not None and inter.answer.ephemeral
    return str(inter.answer.content)


def leaves(data: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[str, list[Any]]]:
    """Every invocable slash command of a synced command: (its name, its options)."""
    options = data.get("options", [])
    subs = [o for o in options if o.get("type") in (SUBCOMMAND, GROUP)]
    if not subs:
        return [(" ".join((*path, data["name"])), options)]
    return [leaf for o in subs for leaf in leaves(o, (*path, data["name"]))]


def filled(world: World, options: list[dict[str, Any]]) -> dict[str, Any]:
    """A value for every required option (the first choice where there are choices)."""
    out: dict[str, Any] = {}
    for o in options:
        if not o.get("required"):
            continue
        kind = o["type"]
        if o.get("choices"):
            out[o["name"]] = o["choices"][0]["value"]
        elif kind == STRING:
            out[o["name"]] = "x"
        elif kind in (INTEGER, NUMBER):
            out[o["name"]] = max(1, int(o.get("min_value", 1)))
        elif kind == BOOLEAN:
            out[o["name"]] = False
        elif kind == USER:
            out[o["name"]] = world.bob
        elif kind == CHANNEL:
            out[o["name"]] = world.general
        elif kind == ROLE:
            out[o["name"]] = world.host_role
    return out


def typed_argument(world: World, annotation: Any) -> str:
    """A prefix command's argument of this type, as a member would type it."""
    if typing.get_origin(annotation) is typing.Literal:
        return str(typing.get_args(annotation)[0])
    if annotation in (discord.Member, discord.User):
        return f"<@{world.bob.id}>"
    if annotation is discord.TextChannel:
        return f"<#{world.general.id}>"
    if annotation is discord.Role:
        return f"<@&{world.host_role.id}>"
    if annotation is bool:
        return "no"
    return "1"  # an int, a range, or a text


async def test_every_command_component_and_message_path_goes_through_the_gate(
        world: World) -> None:
    fake = world.fake
    mods = fake.add_role(world.guild, "Mods", permissions=P.MANAGE_GUILD)
    mod = fake.add_member(world.guild, "mod", roles=[mods])
    async with umpire(world) as up:
        bot, gate = up.bot, up.bot.gate
        # Declared: every prefix/hybrid command (groups and subcommands), every slash
        # command, the typed-message listener.
        undeclared = [c.qualified_name for c in bot.walk_commands() if need_of(c) is None]
        assert undeclared == []
        assert all(isinstance(c, commands.HybridCommand | commands.HybridGroup)
                   for c in bot.walk_commands())  # (each is observed below as a slash command)
        assert [c.qualified_name for c in bot.tree.walk_commands() if need_of(c) is None
                and not isinstance(c, discord.app_commands.Group)] == []  # (groups: not invocable)
        # every listener of a message event (typed, edited, deleted: the prompt fix) acts
        listeners = [f for event, fs in bot.extra_events.items() if "message" in event
                     for f in fs]
        assert {"on_message", "on_raw_message_edit", "on_raw_message_delete"} <= {
            event for event in bot.extra_events if "message" in event}
        assert listeners and all(isinstance(getattr(f, ATTR, None), Need) for f in listeners)
        assert bot._before_invoke == gate.command  # (the hook every command's prepare calls)
        # Observed: each slash command, used with its required options, is decided by it.
        used = []
        for synced in [c for c in fake.commands.get(None, []) if c.type == 1]:
            for name, options in leaves(synced.data):
                gate.seen.clear()
                inter = await fake.slash_command(mod, world.general, name,
                                                 filled(world, options))
                await fake.wait_for(lambda inter=inter: inter.finished, 10)
                assert any(m == mod.id and what.split(":", 1)[1] == name
                           for what, m in gate.seen), (name, gate.seen)
                used.append(name)
        tree_names = {c.qualified_name for c in bot.tree.walk_commands()
                      if not isinstance(c, discord.app_commands.Group)}
        assert tree_names <= set(used), tree_names - set(used)
        # Components: every registered dynamic item is a GatedItem whose callback is the
        # gate's; a forged one of each, clicked by a spectator, is decided (and refused).
        registered = set(bot._connection._view_store._dynamic_items.values())
        assert all(issubclass(c, GatedItem) and c.callback is GatedItem.callback
                   for c in registered), registered
        assert not [c for c in discord.ui.Modal.__subclasses__()
                    if c.__module__.startswith("bot.")]  # (no modal yet: one would be gated)
        items: list[Any] = [ChoiceButton(999, "k", 0, "a"), ChoiceSelect(999, "k", ["a"]),
                            OrderedSelect(999, "k", 2, [("a", "a"), ("b", "b")]),
                            MultiSelect(999, "k", "v", [("a", "a")]),
                            PrivateButton(999, "k", "v"),
                            ChallengeButton("rps-poker", world.alice.id, world.bob.id, "a"),
                            RematchButton(999)]
        assert {type(i) for i in items} == registered  # a new component must be tried here
        view = discord.ui.View(timeout=None)
        for item in items:
            view.add_item(item)
        posted = await bot.get_channel(world.general.id).send("forged", view=view)  # type: ignore[union-attr]
        await fake.settle()
        message = fake.get_message(posted.id)
        assert message is not None
        for item in items:
            gate.seen.clear()
            custom_id = item.item.custom_id
            if isinstance(item.item, discord.ui.Button):
                inter = await fake.click_button(world.eve, message, custom_id)
            else:
                inter = await fake.select(world.eve, message, custom_id,
                                          [item.item.options[0].value])
            await fake.wait_for(lambda inter=inter: inter.followups, 10)
            assert (f"component:{type(item).__name__}", world.eve.id) in gate.seen
            assert inter.followups[0].ephemeral
        # The prefix form of each command, typed with its required arguments, goes through
        # the same hook.
        for command in bot.walk_commands():
            if isinstance(command, commands.Group):
                continue
            required = [p.annotation for p in command.clean_params.values() if p.required]
            if any(isinstance(a, discord.app_commands.Transformer) for a in required):
                continue  # (an app_commands.Range cannot be typed: the slash form only)
            gate.seen.clear()
            words = [typed_argument(world, a) for a in required]
            await fake.send_user_message(mod, world.general,
                                         " ".join(["!" + command.qualified_name, *words]))
            await fake.wait_for(lambda c=command: (f"command:{c.qualified_name}", mod.id)
                                in gate.seen, 10)
            await up.idle(fake)
        # The typed message path.
        match = await start_rps(world, up)
        gate.seen.clear()
        await fake.send_user_message(world.eve, channel_of(world, match, "public"), "play r3")
        await fake.wait_for(lambda: ("message", world.eve.id) in gate.seen, 10)


# --- finding 1: a player never referees a match of her own event ---------------------------
async def test_a_host_who_plays_in_an_event_cannot_award_or_abort_its_other_matches(
        world: World) -> None:
    fake = world.fake
    hana = fake.add_member(world.guild, "hana", roles=[world.host_role])
    fay = fake.add_member(world.guild, "fay")
    async with umpire(world) as up:
        async def say(user: User, command: str, **options: Any) -> str:
            return await answered(world, await fake.slash_command(user, world.general,
                                                                  command, options))
        assert "created" in await say(world.host, "tournament create", name="Cup",
                                      game="rps-poker", format="single", break_seconds=0)
        [event] = await store.of_guild(drive(up.service).engine, world.guild.id)
        await say(world.host, "tournament open")
        for member in (hana, world.alice, world.bob, fay):
            assert "signed up" in await say(member, "tournament join")
        await say(world.host, "tournament close")
        await say(world.host, "tournament start")
        await fake.wait_for(lambda: len([m for m in drive(up.service).matches()
                                         if m.transport.get("event") == event.id]) == 2, 20)
        matches = [m for m in drive(up.service).matches() if m.transport.get("event") == event.id]
        other = next(m for m in matches if m.seat_of(f"discord:{hana.id}") is None)
        opponent = fake.users[int(other.players[0].id.split(":", 1)[1])]
        for command, options in (("match award", {"player": opponent}), ("match abort", {}),
                                 ("match pause", {}), ("match lock", {})):
            text = await say(hana, command, match=other.id, **options)
            assert "Cup" in text and "decide your opponents" in text, (command, text)
        assert other.status == "active"
        # Another host may.
        assert "awarded" in await say(world.host, "match award", player=opponent, match=other.id)
        await fake.wait_for(lambda: other.status == "finished", 10)


# --- finding 5: a flood gets one answer --------------------------------------------------------
async def test_a_flood_of_typed_moves_in_a_table_gets_one_reply(world: World) -> None:
    fake = world.fake
    async with umpire(world, refusal_cooldown_seconds=60) as up:
        match = await start_rps(world, up)
        table = channel_of(world, match, "seat0")
        before = len(bot_posts(world, table))
        for i in range(12):
            await fake.send_user_message(world.alice, table, f"nonsense {i}")
        await up.idle(fake)
        replies = [m for m in fake.messages(table)[before:] if m.author.id == fake.bot_user.id]
        assert len(replies) == 1, [m.content for m in replies]
        assert match.seq == 0


async def test_tournament_show_and_board_floods_post_or_edit_once(world: World) -> None:
    fake = world.fake
    async with umpire(world, read_cooldown_seconds=30) as up:
        await answered(world, await fake.slash_command(
            world.host, world.general, "tournament create",
            {"name": "Cup", "game": "rps-poker", "format": "single"}))
        first = await fake.slash_command(world.eve, world.general, "tournament show", {})
        assert "edited as the event goes" in await answered(world, first)
        await fake.settle()
        start = len(fake.request_log)
        shows = [await fake.slash_command(world.eve, world.general, "tournament show", {})
                 for _ in range(5)]
        await fake.settle()
        assert "try again" in await answered(world, shows[0])
        for later in shows[1:]:  # silence: the "thinking..." removed, nothing posted
            assert later.original is not None and later.original.deleted
        writes = [(e.method, e.path) for e in fake.request_log[start:]
                  if e.method in ("POST", "PATCH") and e.path.startswith("/channels/")]
        assert writes == []  # no edit of the event's message, no post

        match = await start_rps(world, up)
        room = channel_of(world, match, "public")
        boards = [await fake.slash_command(world.eve, room, "board", wait=False)
                  for _ in range(5)]
        await fake.wait_for(lambda: all(b.responded for b in boards), 10)
        await fake.settle()
        assert len([m for m in bot_posts(world, room) if m.embeds]) == 1
        shown = [b.original.content for b in boards
                 if b.original is not None and not b.original.deleted]
        assert sorted(("posted" in t, "try again" in t) for t in shown) == [
            (False, True), (True, False)], shown  # one posts, one is told, three get nothing

        # A member command typed with the prefix answers in the channel: paced the same (by
        # someone else: eve's uses of general's one post cooldown are spent).
        before = len(bot_posts(world, world.general))
        for _ in range(4):
            await fake.send_user_message(world.bob, world.general, "!tournament")
        await up.idle(fake)
        said = [m.content for m in bot_posts(world, world.general)[before:]]
        assert len(said) == 2 and "Subcommands" in said[0] and "try again" in said[1], said


# --- finding 6: one open challenge per pair, held by a lock ------------------------------------
async def test_three_simultaneous_challenges_ping_once(world: World) -> None:
    fake = world.fake
    channels = [world.general, fake.add_text_channel(world.guild, "games"),
                fake.add_text_channel(world.guild, "lobby")]
    async with umpire(world, friendly_matches=True, challenge_cooldown_seconds=0) as up:
        await fake.sync()
        inters = [await fake.slash_command(world.alice, channel, "challenge", wait=False,
                                           member=world.bob, game="rps-poker")
                  for channel in channels]
        inters.append(await fake.slash_command(world.bob, world.general, "challenge",
                                               wait=False, member=world.alice,
                                               game="rps-poker"))
        await fake.wait_for(lambda: all(i.finished for i in inters), 15)
        await up.idle(fake)
        posts: list[Message] = [m for c in channels for m in bot_posts(world, c)
                                if "challenges" in m.content]
        assert len(posts) == 1, [m.content for m in posts]
        texts = [str(i.answer.content) for i in inters if i.answer is not None]
        assert sum("Challenge posted" in t for t in texts) == 1
        assert sum("still open" in t or "already challenged you" in t for t in texts) == 3
        await asyncio.sleep(0)


# --- the mechanisms on their own ---------------------------------------------------------------
def _gate(clock: list[float]) -> Gate:
    settings = SimpleNamespace(discord=SimpleNamespace(read_cooldown_seconds=10.0,
                                                       refusal_cooldown_seconds=5.0))
    return Gate(SimpleNamespace(settings=settings), clock=lambda: clock[0])  # type: ignore[arg-type]


def test_a_cooldown_tells_once_then_is_silent_until_it_ends() -> None:
    clock = [0.0]
    gate = _gate(clock)
    assert [gate.pace(POST, 1, 7) for _ in range(4)] == ["go", "tell", "silent", "silent"]
    assert gate.pace(POST, 2, 7) == "go" and gate.pace(POST, 1, 8) == "go"  # member, channel
    assert [gate.pace(REPLY, 1, 7) for _ in range(3)] == ["go", "silent", "silent"]
    clock[0] = 9.9
    assert gate.pace(POST, 1, 7) == "silent"
    clock[0] = 10.0
    assert gate.pace(POST, 1, 7) == "go"  # over: a new cooldown, told again when too soon
    assert gate.pace(POST, 1, 7) == "tell"


async def test_ordered_uses_of_a_key_run_one_at_a_time_in_any_key_order() -> None:
    gate = _gate([0.0])
    inside: list[int] = []
    most = 0

    async def use(keys: list[str]) -> None:
        nonlocal most
        async with gate.ordered(keys):
            inside.append(1)
            most = max(most, len(inside))
            await asyncio.sleep(0.01)
            inside.pop()
    await asyncio.wait_for(asyncio.gather(use(["a", "b"]), use(["b", "a"]), use(["b"])), 5)
    assert most == 1
