"""The real discord.py client against FakeDiscord."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from testbed.fake_discord import permissions as P
from testbed.fake_discord.harness import running_client
from testbed.fake_discord.server import FakeDiscord
from tests.support.fake_world import World, make_bot


def collect(into: list, transform: Callable[..., Any] = lambda *args: args) -> Callable[..., Any]:
    """An async listener (discord.py requires coroutines) that appends transform(*args)."""

    async def listener(*args: Any) -> None:
        into.append(transform(*args))

    return listener


async def test_login_ready_and_cache(fake_discord: FakeDiscord, world: World) -> None:
    bot = make_bot()
    ready = []
    bot.add_listener(collect(ready, lambda: True), "on_ready")
    async with running_client(bot, fake_discord):
        assert ready == [True]
        assert bot.user is not None and bot.user.id == fake_discord.bot_user.id
        assert bot.application_id == fake_discord.application_id
        guild = bot.get_guild(world.guild.id)
        assert guild is not None and guild.name == "Card Club"
        assert {m.name for m in guild.members} == {
            "Card Club-owner",
            "Umpire",
            "hannah",
            "alice",
            "bob",
        }
        assert {r.name for r in guild.roles} == {"@everyone", "Umpire", "Host"}
        assert [c.name for c in guild.text_channels] == ["general"]
        host = guild.get_member(world.host.id)
        alice = guild.get_member(world.alice.id)
        assert host is not None and alice is not None
        assert host.guild_permissions.manage_guild and not alice.guild_permissions.manage_guild
        assert guild.owner is not None and guild.owner.guild_permissions.administrator
        assert guild.me.guild_permissions.manage_channels
        assert guild.me.get_role(fake_discord.bot_role(world.guild).id).is_bot_managed()
    assert fake_discord.gateway.identify_count == 1
    path, query = fake_discord.gateway.connection_log[0]
    assert path == "/gateway" and query["v"] == "10" and query["compress"] == "zlib-stream"


async def test_message_reaches_on_message_and_reply_is_stored(
    fake_discord: FakeDiscord, world: World
) -> None:
    bot = make_bot()
    seen: list[discord.Message] = []

    @bot.event
    async def on_message(message: discord.Message) -> None:
        if message.author.bot:
            return
        seen.append(message)
        await message.channel.send(f"{message.author.display_name} said {message.content}")

    async with running_client(bot, fake_discord):
        sent = await fake_discord.send_user_message(world.alice, world.general, "hello umpire")
        reply = await fake_discord.wait_for_message(world.general, from_bot=True, after=sent)
    assert len(seen) == 1
    assert seen[0].author.id == world.alice.id and isinstance(seen[0].author, discord.Member)
    assert seen[0].content == "hello umpire" and seen[0].guild is not None
    assert reply.content == "alice said hello umpire"
    stored = fake_discord.messages(world.general)
    assert [(m.author.username, m.content) for m in stored] == [
        ("alice", "hello umpire"),
        ("Umpire", "alice said hello umpire"),
    ]


async def test_message_content_needs_the_intent(fake_discord: FakeDiscord, world: World) -> None:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default())
    contents: list[str] = []
    bot.add_listener(collect(contents, lambda m: m.content), "on_message")
    async with running_client(bot, fake_discord):
        await fake_discord.send_user_message(world.alice, world.general, "secret move")
        await fake_discord.send_user_message(
            world.alice, world.general, f"{fake_discord.bot_user.mention} hi"
        )
        await fake_discord.sync()
        await fake_discord.wait_for(lambda: len(contents) == 2)
    assert contents == ["", f"{fake_discord.bot_user.mention} hi"]


async def test_private_table_channel_visibility(fake_discord: FakeDiscord, world: World) -> None:
    fake = fake_discord
    bot = make_bot()
    created: list[int] = []
    bot.add_listener(collect(created, lambda c: c.id), "on_guild_channel_create")
    async with running_client(bot, fake):
        guild = bot.get_guild(world.guild.id)
        assert guild is not None
        host_role = guild.get_role(world.host_role.id)
        alice = guild.get_member(world.alice.id)
        assert host_role is not None and alice is not None
        hidden = {
            guild.default_role: discord.PermissionOverwrite(view_channel=False),
            guild.me: discord.PermissionOverwrite(view_channel=True, send_messages=True),
            host_role: discord.PermissionOverwrite(view_channel=True),
        }
        category = await guild.create_category("Tables", overwrites=hidden)
        table = await guild.create_text_channel(
            "Table 1",
            category=category,
            overwrites={
                **hidden,
                alice: discord.PermissionOverwrite(view_channel=True, send_messages=True),
            },
        )
        await fake.sync()  # CHANNEL_CREATE events parsed
        assert created == [category.id, table.id]
        assert table.name == "table-1" and table.category_id == category.id
        cached = guild.get_channel(table.id)
        assert isinstance(cached, discord.TextChannel)
        assert cached.permissions_for(alice).view_channel

        fake_table = fake.channels[table.id]
        assert fake_table.parent_id == category.id
        assert fake.can_view(world.alice, fake_table)
        assert fake.can_view(world.host, fake_table)
        assert fake.can_view(fake.bot_user, fake_table)
        assert not fake.can_view(world.bob, fake_table)
        with pytest.raises(PermissionError):
            await fake.send_user_message(world.bob, fake_table, "let me in")

        bob = guild.get_member(world.bob.id)
        assert bob is not None
        await table.set_permissions(bob, view_channel=True)
        assert fake.can_view(world.bob, fake_table)
        await table.set_permissions(bob, overwrite=None)
        assert not fake.can_view(world.bob, fake_table)

        # Discord only lets the bot grant permissions it has itself.
        with pytest.raises(discord.Forbidden):
            await table.set_permissions(bob, view_channel=True, manage_guild=True)
    assert [r.method for r in fake.requests].count("PUT") == 2


class MatchButtons(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Accept", style=discord.ButtonStyle.green, custom_id="match:accept")
    async def accept(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_message(f"{interaction.user.display_name} accepted")

    @discord.ui.button(label="My hand", custom_id="match:hand")
    async def hand(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        await interaction.response.send_message("you hold 3 cards", ephemeral=True)

    @discord.ui.button(label="Close", style=discord.ButtonStyle.red, custom_id="match:close")
    async def close(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        for item in self.children:
            if isinstance(item, discord.ui.Button):
                item.disabled = True
        await interaction.response.edit_message(content="closed", view=self)


async def test_buttons_ephemeral_and_persistent_views(
    fake_discord: FakeDiscord, world: World
) -> None:
    fake = fake_discord
    bot = make_bot()
    async with running_client(bot, fake):
        channel = bot.get_channel(world.general.id)
        assert isinstance(channel, discord.TextChannel)
        sent = await channel.send("Challenge!", view=MatchButtons())
        message = fake.get_message(sent.id)
        assert message is not None and len(message.iter_components()) == 3

        accepted = await fake.click_button(world.alice, message, "match:accept")
        assert accepted.response is not None and accepted.response.type == 4
        assert accepted.response.content == "alice accepted" and not accepted.response.ephemeral
        assert fake.messages(world.general)[-1].content == "alice accepted"

        hand = await fake.click_button(world.bob, message, "match:hand")
        assert hand.response is not None and hand.response.ephemeral
        assert hand.original is not None and hand.original.visible_to == world.bob.id
        assert "you hold 3 cards" not in [m.content for m in fake.messages(world.general)]
        assert "you hold 3 cards" in [
            m.content for m in fake.messages(world.general, include_ephemeral=True)
        ]

    # A fresh client (think: the bot restarted) re-registers the persistent view.
    class Restarted(commands.Bot):
        async def setup_hook(self) -> None:
            self.add_view(MatchButtons())

    intents = discord.Intents.default()
    async with running_client(Restarted(command_prefix="!", intents=intents), fake):
        closed = await fake.click_button(world.host, message, "match:close")
        assert closed.response is not None and closed.response.type == 7
        assert message.content == "closed" and message.edited_timestamp is not None
        assert all(c.get("disabled") for c in message.iter_components())
        with pytest.raises(PermissionError):
            await fake.click_button(world.alice, message, "match:accept")
    assert len(fake.interaction_responses) == 3


async def test_select_menu(fake_discord: FakeDiscord, world: World) -> None:
    fake = fake_discord
    picked: list[list[str]] = []

    class Pick(discord.ui.View):
        @discord.ui.select(
            custom_id="pick:card",
            options=[discord.SelectOption(label=c) for c in "ABC"],
            max_values=2,
        )
        async def card(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
            picked.append(select.values)
            await interaction.response.defer()

    bot = make_bot()
    async with running_client(bot, fake):
        channel = bot.get_channel(world.general.id)
        assert isinstance(channel, discord.TextChannel)
        sent = await channel.send("pick", view=Pick())
        message = fake.get_message(sent.id)
        assert message is not None
        interaction = await fake.select(world.alice, message, "pick:card", ["A", "C"])
        assert interaction.response is not None and interaction.response.type == 6
        with pytest.raises(ValueError):
            await fake.select(world.alice, message, "pick:card", ["Z"])
    assert picked == [["A", "C"]]


async def test_slash_and_hybrid_commands(fake_discord: FakeDiscord, world: World) -> None:
    fake = fake_discord
    guild_obj = discord.Object(world.guild.id)

    class UmpireBot(commands.Bot):
        async def setup_hook(self) -> None:
            self.tree.copy_global_to(guild=guild_obj)
            await self.tree.sync(guild=guild_obj)

    bot = UmpireBot(
        command_prefix="!",
        intents=discord.Intents.default() | discord.Intents(message_content=True),
    )
    match = app_commands.Group(name="match", description="Matches")
    admin = app_commands.Group(name="admin", description="Admin", parent=match)
    bot.tree.add_command(match)

    @match.command(name="challenge", description="Challenge someone")
    async def challenge(
        interaction: discord.Interaction, opponent: discord.Member, stakes: int = 1
    ) -> None:
        assert isinstance(opponent, discord.Member)
        await interaction.response.send_message(
            f"{interaction.user.display_name} challenges {opponent.display_name} for {stakes}"
        )

    @admin.command(name="export", description="Export a match record")
    async def export(interaction: discord.Interaction, note: str) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        record = io.BytesIO(json.dumps({"note": note}).encode())
        await interaction.followup.send(
            "record", file=discord.File(record, filename="match.json"), ephemeral=True
        )

    @bot.hybrid_command(name="ping", description="Ping")
    async def ping(ctx: commands.Context) -> None:
        await ctx.send("pong")

    async with running_client(bot, fake):
        assert {c.name for c in fake.commands[world.guild.id]} == {"match", "ping"}
        inter = await fake.slash_command(
            world.alice, world.general, "match challenge", opponent=world.bob, stakes=5
        )
        assert inter.response is not None and inter.response.content == "alice challenges bob for 5"
        assert inter.data["options"][0]["options"][0]["type"] == 6  # USER, from the synced schema

        exported = await fake.slash_command(
            world.host, world.general, "match admin export", note="gg"
        )
        assert (
            exported.response is not None
            and exported.response.type == 5
            and exported.response.ephemeral
        )
        await fake.wait_for(lambda: exported.original and not exported.original.flags & 128)
        original = exported.original
        assert original.content == "record" and original.ephemeral
        assert original.attachments[0].filename == "match.json"
        assert json.loads(original.attachments[0].data) == {"note": "gg"}

        pinged = await fake.slash_command(world.bob, world.general, "ping")
        assert pinged.response is not None and pinged.response.content == "pong"
        sent = await fake.send_user_message(world.bob, world.general, "!ping")
        reply = await fake.wait_for_message(world.general, from_bot=True, after=sent)
        assert reply.content == "pong"
        with pytest.raises(ValueError):
            await fake.slash_command(world.alice, world.general, "match challenge", stakes=2)


async def test_deleting_user_messages_needs_manage_messages(
    fake_discord: FakeDiscord, world: World
) -> None:
    fake = fake_discord
    bot_role = fake.bot_role(world.guild)
    fake.set_role_permissions(bot_role, P.DEFAULT_BOT & ~P.MANAGE_MESSAGES)
    deleted: list[int] = []
    bot = make_bot()
    bot.add_listener(collect(deleted, lambda p: p.message_id), "on_raw_message_delete")
    async with running_client(bot, fake):
        posted = await fake.send_user_message(world.alice, world.general, "illegal move")
        channel = bot.get_channel(world.general.id)
        assert isinstance(channel, discord.TextChannel)
        message = await channel.fetch_message(posted.id)
        with pytest.raises(discord.Forbidden) as denied:
            await message.delete()
        assert denied.value.code == 50013 and not posted.deleted

        fake.set_role_permissions(bot_role, P.DEFAULT_BOT)
        await fake.sync()
        assert channel.permissions_for(channel.guild.me).manage_messages
        await message.delete()
        await fake.wait_for(lambda: deleted == [posted.id])
    assert posted.deleted and fake.messages(world.general) == []


async def test_nonce_deduplicates_sends(fake_discord: FakeDiscord, world: World) -> None:
    fake = fake_discord
    other = fake.add_text_channel(world.guild, "lobby")
    bot = make_bot()
    async with running_client(bot, fake):
        channel = bot.get_channel(world.general.id)
        lobby = bot.get_channel(other.id)
        assert isinstance(channel, discord.TextChannel) and isinstance(lobby, discord.TextChannel)
        first = await channel.send("round 1 starts", nonce=424242)
        second = await channel.send("round 1 starts", nonce=424242)
        elsewhere = await lobby.send("round 1 starts", nonce=424242)
    assert first.id == second.id != elsewhere.id
    assert len(fake.messages(world.general)) == 1 and len(fake.messages(other)) == 1
    assert fake.count_requests("POST", "/channels/*/messages") == 3


async def test_injected_500_and_429_are_retried(fake_discord: FakeDiscord, world: World) -> None:
    fake = fake_discord
    bot = make_bot()
    async with running_client(bot, fake):
        channel = bot.get_channel(world.general.id)
        assert isinstance(channel, discord.TextChannel)
        start = len(fake.requests)
        fake.fail_next("POST", "/channels/*/messages", status=500)
        await channel.send("after a 500")
        fake.fail_next("POST", "/channels/*/messages", status=429, retry_after=0.05)
        await channel.send("after a 429")
        assert [e.status for e in fake.request_log[start:]] == [500, 200, 429, 200]

        fake.unreachable_channels.add(world.general.id)
        with pytest.raises(discord.Forbidden) as denied:
            await channel.send("nobody hears this")
        assert denied.value.code == 50001
    assert [m.content for m in fake.messages(world.general)] == ["after a 500", "after a 429"]


async def test_disconnect_resume_and_new_client(fake_discord: FakeDiscord, world: World) -> None:
    fake = fake_discord
    bot = make_bot()
    seen: list[str] = []
    bot.add_listener(collect(seen, lambda m: m.content), "on_message")
    async with running_client(bot, fake):
        await fake.disconnect_client()
        # Sent while the bot is away (or just back): a RESUME replays it exactly once.
        await fake.send_user_message(world.alice, world.general, "while you were out")
        await fake.wait_for(lambda: fake.gateway.resume_count == 1 and fake.connected)
        assert fake.gateway.connection_log[-1][0] == "/gateway-resume"
        await fake.send_user_message(world.alice, world.general, "welcome back")
        await fake.wait_for(lambda: len(seen) == 2)
        await fake.sync()
    assert seen == ["while you were out", "welcome back"]
    assert fake.gateway.identify_count == 1

    second = make_bot()
    replies: list[str] = []

    @second.event
    async def on_message(message: discord.Message) -> None:
        if not message.author.bot:
            replies.append(message.content)
            await message.reply("restarted and listening")

    async with running_client(second, fake):
        sent = await fake.send_user_message(world.bob, world.general, "anyone there?")
        reply = await fake.wait_for_message(world.general, from_bot=True, after=sent)
    assert fake.gateway.identify_count == 2
    assert replies == ["anyone there?"] and reply.content == "restarted and listening"
    assert reply.message_reference is not None and reply.message_reference["message_id"] == str(
        sent.id
    )


async def test_dm_and_attachment_roundtrip(fake_discord: FakeDiscord, world: World) -> None:
    fake = fake_discord
    bot = make_bot()
    async with running_client(bot, fake):
        user = await bot.fetch_user(world.alice.id)
        dm = await user.create_dm()
        sent = await dm.send(
            "your record", file=discord.File(io.BytesIO(b'{"moves": 3}'), filename="record.json")
        )
        assert await sent.attachments[0].read() == b'{"moves": 3}'
        fake.closed_dms.add(world.bob.id)
        bob = await bot.fetch_user(world.bob.id)
        with pytest.raises(discord.Forbidden) as denied:
            await bob.send("hi")
        assert denied.value.code == 50007
    [stored] = fake.messages(fake.dm_channel(world.alice))
    assert (
        stored.attachments[0].filename == "record.json"
        and stored.attachments[0].data == b'{"moves": 3}'
    )


async def test_rest_reads_and_unknown_routes(fake_discord: FakeDiscord, world: World) -> None:
    fake = fake_discord
    guild_obj = discord.Object(world.guild.id)

    class Synced(commands.Bot):
        async def setup_hook(self) -> None:
            self.tree.copy_global_to(guild=guild_obj)
            await self.tree.sync(guild=guild_obj)

    bot = Synced(command_prefix="!", intents=discord.Intents.default())

    @bot.tree.command(name="score", description="Show the score")
    async def score(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("0-0")

    async with running_client(bot, fake):
        guild = await bot.fetch_guild(world.guild.id)
        assert guild.name == "Card Club" and guild.owner_id == world.guild.owner_id
        assert {c.name for c in await guild.fetch_channels()} == {"general"}
        assert {r.name for r in await guild.fetch_roles()} == {"@everyone", "Umpire", "Host"}
        member = await guild.fetch_member(world.host.id)
        assert [r.id for r in member.roles if not r.is_default()] == [world.host_role.id]
        channel = await bot.fetch_channel(world.general.id)
        assert isinstance(channel, discord.TextChannel) and channel.name == "general"
        [command] = await bot.tree.fetch_commands(guild=guild_obj)
        assert command.name == "score" and command.id == fake.commands[world.guild.id][0].id
        with pytest.raises(discord.NotFound):
            await bot.http.request(
                discord.http.Route("GET", "/guilds/{guild_id}/emojis", guild_id=guild.id)
            )
    assert fake.unknown_requests == [("GET", f"/guilds/{world.guild.id}/emojis", None)]
    fake.unknown_requests.clear()  # the fixture fails tests that hit unknown routes


async def test_interaction_followups_edits_and_deadline(
    fake_discord: FakeDiscord, world: World
) -> None:
    fake = fake_discord
    bot = make_bot()

    @bot.tree.command(name="round", description="Play a round")
    async def round_(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("round 1")
        await interaction.edit_original_response(content="round 1 (edited)")
        extra = await interaction.followup.send("bonus", wait=True)
        await extra.edit(content="bonus (edited)")
        fetched = await interaction.original_response()
        assert fetched.content == "round 1 (edited)"
        await extra.delete()

    @bot.tree.command(name="slow", description="Too slow")
    async def slow(interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.2)
        await interaction.response.send_message("too late")

    async with running_client(bot, fake, fail_on_errors=False):
        played = await fake.slash_command(world.alice, world.general, "round")
        await fake.wait_for(lambda: played.followups and played.followups[0].deleted)
        assert played.original is not None and played.original.content == "round 1 (edited)"
        assert [m.content for m in fake.messages(world.general)] == ["round 1 (edited)"]

        fake.interaction_timeout = 0.1
        late = await fake.slash_command(world.alice, world.general, "slow", wait=False)
        entry = await fake.wait_for_request("POST", f"/interactions/{late.id}/*/callback")
        await fake.wait_for(lambda: entry.status)
        assert entry.status == 404 and not late.responded


async def test_modal_submit(fake_discord: FakeDiscord, world: World) -> None:
    fake = fake_discord
    moves: list[str] = []

    class MoveModal(discord.ui.Modal, title="Your move"):
        move = discord.ui.TextInput(label="Move", custom_id="move")

        async def on_submit(self, interaction: discord.Interaction) -> None:
            moves.append(self.move.value)
            await interaction.response.send_message(f"played {self.move.value}", ephemeral=True)

    bot = make_bot()

    @bot.tree.command(name="move", description="Make a move")
    async def move(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(MoveModal())

    async with running_client(bot, fake):
        opened = await fake.slash_command(world.alice, world.general, "move")
        assert opened.response is not None and opened.response.type == 9
        submitted = await fake.submit_modal(opened, {"move": "e4"})
        assert submitted.response is not None and submitted.response.content == "played e4"
        with pytest.raises(ValueError):
            await fake.submit_modal(opened, {"nope": "x"})
    assert moves == ["e4"]


async def test_click_on_a_view_sent_from_an_event_handler(
    fake_discord: FakeDiscord, world: World
) -> None:
    """The bot registers a non-persistent View only after its send() returns; clicks must wait."""
    fake = fake_discord
    votes: list[str] = []

    class Vote(discord.ui.View):
        @discord.ui.button(label="Yes")
        async def yes(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
            votes.append(interaction.user.name)
            await interaction.response.send_message("counted", ephemeral=True)
            self.stop()

    bot = make_bot()

    @bot.event
    async def on_message(message: discord.Message) -> None:
        if message.content == "vote":
            view = Vote(timeout=30)
            await message.channel.send("Vote now", view=view)
            await view.wait()
            await message.channel.send(f"votes: {votes}")

    async with running_client(bot, fake):
        asked = await fake.send_user_message(world.alice, world.general, "vote")
        ballot = await fake.wait_for_message(world.general, from_bot=True, after=asked)
        [button] = ballot.iter_components()
        await fake.click_button(world.bob, ballot, button["custom_id"])
        result = await fake.wait_for_message(world.general, lambda m: m.content.startswith("votes"))
    assert result.content == "votes: ['bob']"


async def test_mid_match_permission_changes_reach_the_clients_cache_as_events(
        fake_discord: FakeDiscord, world: World) -> None:
    """What a moderator does mid-match (sync a channel with its category, remove an
    overwrite, give a role, change a role's permissions) is announced on the gateway, so the
    client's cache and its update events follow."""
    fake = fake_discord
    everyone = world.guild.roles[world.guild.id]
    category = fake.add_category(world.guild, "match")
    table = fake.add_text_channel(world.guild, "table-alice", category=category)
    fake.set_overwrite(table, everyone, deny=P.VIEW_CHANNEL)
    fake.set_overwrite(table, world.alice, allow=P.VIEW_CHANNEL)
    bot = make_bot()
    events: list[str] = []
    bot.add_listener(collect(events, lambda before, after: "channel"), "on_guild_channel_update")
    bot.add_listener(collect(events, lambda before, after: "member"), "on_member_update")
    bot.add_listener(collect(events, lambda before, after: "role"), "on_guild_role_update")
    async with running_client(bot, fake):
        guild = bot.get_guild(world.guild.id)
        assert guild is not None
        cached = guild.get_channel(table.id)
        assert isinstance(cached, discord.TextChannel) and not cached.permissions_synced
        bob = guild.get_member(world.bob.id)
        assert bob is not None and not cached.permissions_for(bob).view_channel
        fake.sync_with_category(table)  # "Sync Now"
        await fake.sync()
        cached = guild.get_channel(table.id)
        assert isinstance(cached, discord.TextChannel) and cached.permissions_synced
        assert cached.permissions_for(bob).view_channel and fake.can_view(world.bob, table)
        fake.set_overwrite(table, world.bob, deny=P.VIEW_CHANNEL)
        fake.remove_overwrite(table, world.bob)
        fake.add_member_role(world.guild, world.bob, world.host_role)
        fake.set_role_permissions(world.host_role, P.ADMINISTRATOR)
        await fake.sync()
        await fake.settle()
        bob = guild.get_member(world.bob.id)
        assert bob is not None and bob.guild_permissions.administrator
        assert events == ["channel", "channel", "channel", "member", "role"]
        with pytest.raises(ValueError):
            fake.sync_with_category(world.general)
