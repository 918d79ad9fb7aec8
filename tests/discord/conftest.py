"""The real discord.py client (UmpireBot) against the fake Discord server, on a tmp SQLite file."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from bot.config import DiscordSettings, Settings
from bot.discord.answer import FOLLOW_SECONDS
from bot.discord.client import UmpireBot
from bot.discord.host_log import LOG_BATCH_SECONDS as BOT_LOG_BATCH_SECONDS
from bot.discord.host_log import LOG_WINDOW_SECONDS
from bot.discord.marker import read_mark, strip_marks
from bot.discord.pacing import Pacer
from bot.discord.places import channel_for
from bot.discord.render import render
from bot.discord.transport import DiscordTransport, parts_of
from bot.live import LiveMatch
from bot.store.database import create_engine
from bot.store.repository import Repository
from bot.transport import ChannelHeld
from bot.umpire import MatchService
from games.core import Prompt
from testbed.fake_discord import permissions as P
from testbed.fake_discord import store as fake_store
from testbed.fake_discord.fixtures import fake_discord  # noqa: F401
from testbed.fake_discord.harness import running_client
from testbed.fake_discord.limits import TEST_SCALE
from testbed.fake_discord.models import Channel, Guild, Overwrite, Role, User
from testbed.fake_discord.server import FakeDiscord
from tests.support.driver import drive

HOST_ROLE = "Umpire Host"
ENTRY = re.compile(r"\n(?=\*\*#\d+\*\* <t:)")  # where a batched host log entry begins
#: The bot's defaults, on the fake's scaled clock: the host log batched per server and
#: what a channel queues behind a rate limit folded into one post, as in production, with
#: every interval `TEST_SCALE` times as long as the bot's own (as Discord's rate limits in
#: the fake: see testbed/fake_discord/fixtures.py). A test that needs one off says so
#: (`umpire(world, coalesce=False)`); tests/discord/test_log_batch.py runs the bot's own 5 s.
LOG_BATCH_SECONDS = BOT_LOG_BATCH_SECONDS * TEST_SCALE


@dataclass
class World:
    fake: FakeDiscord
    guild: Guild
    host_role: Role
    host: User
    alice: User
    bob: User
    eve: User
    general: Channel
    db: Path

    def user(self, player_id: str) -> User:
        uid = int(player_id.split(":", 1)[1])
        return next(u for u in (self.host, self.alice, self.bob, self.eve) if u.id == uid)


@pytest.fixture
def world(fake_discord: FakeDiscord, tmp_path: Path) -> World:  # noqa: F811
    fake = fake_discord
    guild = fake.add_guild("Card Club")
    role = fake.add_role(guild, HOST_ROLE)
    fake.allow_command(guild, "match", role)  # the admin lets hosts see /match (Integrations)
    return World(fake=fake, guild=guild, host_role=role,
                 host=fake.add_member(guild, "hannah", roles=[role]),
                 alice=fake.add_member(guild, "alice"), bob=fake.add_member(guild, "bob"),
                 eve=fake.add_member(guild, "eve"), general=fake.get_channel(guild, "general"),
                 db=tmp_path / "umpire.db")


def settings_for(**discord: Any) -> Settings:
    return Settings(discord=DiscordSettings(token="fake-bot-token", **discord))


@dataclass
class Umpire:
    service: MatchService
    bot: UmpireBot
    transport: DiscordTransport

    async def idle(self, fake: FakeDiscord) -> None:
        """Every outbox message delivered and the bot idle."""
        await fake.wait_for(lambda: drive(self.service).idle(), 10)
        await drive(self.service).drain()
        await self.transport.wait_idle()
        await fake.settle()


@contextlib.asynccontextmanager
async def umpire(world: World, *, drain: bool = True, **discord: Any) -> AsyncIterator[Umpire]:
    """The service on the world's SQLite file and the bot connected to the fake. The gate's
    cooldowns (posts and reads, typed replies) are off unless a test sets them
    (tests/discord/test_gate.py, test_room_chat.py, test_community_safety.py);
    `coalesce`, `log_batch_seconds` and `follow_seconds` (how long a click's follow-ups
    may go on: bot/discord/answer.py) set the transport's (scaled defaults above)."""
    discord.setdefault("read_cooldown_seconds", 0)
    discord.setdefault("refusal_cooldown_seconds", 0)
    engine = create_engine(f"sqlite+aiosqlite:///{world.db}")
    transport = DiscordTransport(
        log_batch_seconds=discord.pop("log_batch_seconds", LOG_BATCH_SECONDS),
        log_window=LOG_WINDOW_SECONDS * TEST_SCALE,
        coalesce=discord.pop("coalesce", True),
        pacer=Pacer(window=TEST_SCALE),  # the global limit on the fake's scale
        follow_seconds=discord.pop("follow_seconds", FOLLOW_SECONDS * TEST_SCALE))
    service = MatchService(Repository(engine), transport, bot_think=0.0, heartbeat_seconds=0.05)
    try:
        await service.start()
        bot = UmpireBot(service, settings_for(**discord), transport)
        async with running_client(bot, world.fake):
            up = Umpire(service, bot, transport)
            yield up
            if drain:
                await up.idle(world.fake)
    finally:
        await service.stop()
        await engine.dispose()


async def start_rps(world: World, up: Umpire, **options: Any) -> LiveMatch:
    """A host starts an RPS Poker match alice (advantage) vs bob with /match start."""
    return await start_match(world, up, "rps-poker", **options)


async def start_match(world: World, up: Umpire, game: str, **options: Any) -> LiveMatch:
    """A host starts a match of `game`, alice (advantage) vs bob, with /match start."""
    fake = world.fake
    before = set(up.service.matches)
    inter = await fake.slash_command(world.host, world.general, "match start", game=game,
                                     player1=world.alice, player2=world.bob, **options)
    await fake.wait_for(lambda: set(up.service.matches) - before, 10)
    [match_id] = set(up.service.matches) - before
    await fake.wait_for(lambda: inter.original is not None and "started" in
                        (inter.original.content or ""), 10)
    await up.idle(fake)
    return up.service.matches[match_id]


async def next_decision(world: World, up: Umpire, match: LiveMatch, seat: int) -> Prompt | None:
    """Wait until `seat` has a decision pending and everything is delivered; None once the
    match has ended."""
    await world.fake.wait_for(lambda: match.status != "active" or
                              any(p.seat == seat for p in match.prompts), 10)
    if match.status != "active":
        return None
    await up.idle(world.fake)
    return next(p for p in match.prompts if p.seat == seat)


def channel_of(world: World, match: LiveMatch, audience: str) -> Channel:
    cid = channel_for(match.transport, audience)
    assert cid is not None
    return world.fake.channels[cid]


def bot_posts(world: World, channel: Channel) -> list[Any]:
    """The bot's messages in a channel (not replies, not ephemeral), less a Rematch offer
    posted on its own when a match ends (tests/discord/test_challenge.py)."""
    return [m for m in world.fake.messages(channel) if m.author.id == world.fake.bot_user.id
            and not is_rematch_offer(m)]


def tag_of(post: Any) -> str | None:
    """The outbox id (or `<id>.<part>`) a bot post carries: its nonce; a click's response
    has none (bot/discord/answer.py), so its marker."""
    if post.nonce is not None:
        return str(post.nonce)
    return read_mark(post.content)[1] if post.interaction_metadata else None


def is_rematch_offer(message: Any) -> bool:
    """A Rematch offer posted on its own (not the match's final message, which carries the
    button when it can: it has an outbox marker)."""
    return any(str(c.get("custom_id", "")).startswith("ump:rm:")
               for c in message.iter_components()) and read_mark(message.content)[1] is None


def _no_times(text: str) -> str:
    """A post with its Discord timestamps (`<t:UNIX:R>`) blanked out."""
    return re.sub(r"<t:-?\d+:R>", "<t:…:R>", text)


async def assert_channels_match_outbox(world: World, up: Umpire, match: LiveMatch,
                                       extra_ok: bool = False) -> dict[str, int]:
    """Every outbox message is in its audience's channel exactly once (nonce = outbox id; a
    text over 2,000 characters as its parts, nonces `<id>.1`, ...), with the rendered text;
    nothing else from the outbox anywhere else. Returns the messages per audience."""
    outbox = await drive(up.service).messages(match.id)
    counts: dict[str, int] = {}
    for audience in ("public", "seat0", "seat1", "umpire"):
        if channel_for(match.transport, audience) is None:
            continue
        if audience == "umpire" and up.transport.batches("umpire"):
            counts[audience] = assert_log_has(world, match, [m for m in outbox
                                                             if m.audience == "umpire"])
            continue
        channel = channel_of(world, match, audience)
        # (deadlines aside: a prompt shows its deadline as it is when posted, later if late)
        posts = bot_posts(world, channel)
        mine = [m for m in outbox if m.audience == audience]
        # announcements folded into the message after them: posted as one, the first's id
        firsts = {tag_of(p) for p in posts} & {str(m.id) for m in mine}
        groups: list[list[Any]] = []
        for m in mine:
            if str(m.id) in firsts or not groups:
                groups.append([m])
            else:
                groups[-1].append(m)
        expected = [(f"{g[0].id}.{i}" if i else str(g[0].id), _no_times(part)) for g in groups
                    for i, part in enumerate(parts_of(render("\n".join(m.text for m in g),
                                                             match.players)))]
        ids = {m_id for m_id, _ in expected}
        got = [(tag_of(m), _no_times(read_mark(m.content)[0])) for m in posts
               if tag_of(m) in ids]
        assert all(read_mark(m.content)[1] == tag_of(m) for m in posts if tag_of(m) in ids), \
            f"{audience}: a post without its outbox marker"
        assert got == expected, f"{audience}: channel differs from the outbox"
        others = [m for m in posts if tag_of(m) not in ids]
        all_ids = {str(m.id) for m in outbox}
        assert not [m for m in others if str(tag_of(m)).split(".")[0] in all_ids], \
            f"{audience}: foreign outbox message"
        if not extra_ok:
            assert others == [], f"{audience}: unexpected bot messages {[m.content for m in others]}"
        counts[audience] = sum(len(g) for g in groups if str(g[0].id) in firsts)
    return counts


def log_lines(world: World, channel: Channel) -> list[str]:
    """The host log's entries (a batched post holds several, one per line; an entry of
    several lines continues on the lines after it)."""
    return [line for line in log_text(world, channel).split("\n") if line]


def log_entries(world: World, channel: Channel) -> list[str]:
    """The host log's entries, whole (several lines each where an entry has them): a batch
    is split before each "**#<match>** <t:…:T>", a post of an unbatched log is one entry."""
    return [entry for post in bot_posts(world, channel)
            for entry in ENTRY.split(log_text_of([post]))]


def log_text(world: World, channel: Channel) -> str:
    """The host log's text: each batch's content and embeds, in order (without the
    invisible outbox markers: a batch has one after each entry)."""
    return log_text_of(bot_posts(world, channel))


def log_text_of(posts: list[Any]) -> str:
    return "\n".join(strip_marks("\n".join([m.content, *(e.get("description", "")
                                                         for e in m.embeds)]))
                     for m in posts)


def assert_log_has(world: World, match: LiveMatch, messages: list[Any]) -> int:
    """Every host log message of the match is in the log once, in order, each as
    "**#<match>** <t:…:T> <text>" (the server's batches), and nothing else of the match."""
    text = log_text(world, channel_of(world, match, "umpire"))
    head = f"**#{match.id}** "
    expected = [_no_clock(f"{head}<t:0:T> {render(m.text, match.players)}") for m in messages]
    got = [_no_clock(e) for e in re.split(r"\n(?=\*\*#\d+\*\* <t:)", text)
           if e.startswith(head)]
    assert got == expected, "host log differs from the outbox"
    return len(got)


def _no_clock(text: str) -> str:
    return re.sub(r"<t:-?\d+:[TR]>", "<t:…>", text)


# Helpers that several test files use (tests/test_layout.py: never imported from a test file).

async def start_vs_bot(world: World, up: Any, game: str, bot: str, **options: Any) -> Any:
    """`/match start` of alice against the built-in `bot` seat; the match, once started."""
    fake = world.fake
    inter = await fake.slash_command(world.host, world.general, "match start", game=game,
                                     player1=world.alice, bot=bot, **options)
    await fake.wait_for(lambda: inter.original is not None and "started" in
                        (inter.original.content or ""), 10)
    [match] = drive(up.service).matches()
    return match


def with_key(world: World, channel: Any, key: str) -> Any:
    """The bot's latest message in `channel` whose components answer decision `key`."""
    return next(m for m in reversed(bot_posts(world, channel))
                if any(c["custom_id"].endswith(f":{key}") for c in m.iter_components()))


def embed_text(message: Any) -> str:
    return "\n".join(e.get("description") or "" for e in message.embeds)


async def play_prompt(world: World, up, match, seat: int) -> None:
    """`seat` types its pending decision's first choice in its table; waits until taken."""
    prompt = next(p for p in match.prompts if p.seat == seat)
    user = [world.alice, world.bob][seat]
    await world.fake.send_user_message(user, channel_of(world, match, f"seat{seat}"),
                                       prompt.choices[0])
    await world.fake.wait_for(lambda: prompt.key not in {p.key for p in match.prompts})


async def undelivered(world: World) -> list[int]:
    """The ids of the outbox messages not marked delivered, read from the database file."""
    engine = create_engine(f"sqlite+aiosqlite:///{world.db}")
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(sa.text("SELECT id FROM outbox WHERE delivered_at IS NULL"))
            return [r[0] for r in rows]
    finally:
        await engine.dispose()


async def unmark(world: World, ids: list[int]) -> None:
    """Marks these outbox messages undelivered again (as if the bot stopped before marking)."""
    engine = create_engine(f"sqlite+aiosqlite:///{world.db}")
    try:
        async with engine.begin() as conn:
            await conn.execute(sa.text(
                f"UPDATE outbox SET delivered_at = NULL WHERE id IN ({','.join(map(str, ids))})"))
    finally:
        await engine.dispose()


#: Discord's nonce window, shortened for the tests (`short_nonce_window`), in seconds.
WINDOW = 0.3


@pytest.fixture
def short_nonce_window(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake's and the transport's nonce windows are `WINDOW` long."""
    monkeypatch.setattr(fake_store, "NONCE_WINDOW_SECONDS", WINDOW)
    monkeypatch.setattr(DiscordTransport, "nonce_window", WINDOW)


def threads_allowed(world: World) -> None:
    """The bot's role gets the permissions that threads mode needs."""
    world.fake.set_role_permissions(world.fake.bot_role(world.guild), P.THREADS_BOT)


def channel_ids(world: World) -> set[int]:
    """The ids of the server's channels that are not deleted."""
    return {c.id for c in world.fake.channels.values()
            if c.guild_id == world.guild.id and not c.deleted}


#: How a spectator feed's reveal of a finished round begins (tests/discord/test_feed.py).
REVEAL = "🔓"


def lines(world: World, channel: Any) -> list[str]:
    """The bot's posts in a channel as lines of visible text, Discord timestamps blanked."""
    out: list[str] = []
    for message in bot_posts(world, channel):
        text = re.sub(r"<t:-?\d+:R>", "<t:…:R>", read_mark(message.content)[0])
        out.extend(text.splitlines())
    return out


def held_reasons(up: Umpire) -> list[str]:
    """Record every `ChannelHeld.for_hosts` the transport raises. Delivery's backoff is made
    long, so that a held channel is retried in time only when the guild update listeners wake
    it (bot/discord/cogs/watch.py)."""
    drive(up.service).set_backoff(60.0, 60.0)
    out: list[str] = []
    real, real_many = up.transport.send, up.transport.send_many

    async def send(match: Any, message: Any) -> None:
        try:
            await real(match, message)
        except ChannelHeld as exc:
            out.append(exc.for_hosts)
            raise

    async def send_many(match: Any, messages: Any) -> None:  # the host log's batches
        try:
            await real_many(match, messages)
        except ChannelHeld as exc:
            if messages and messages[0].audience == "umpire":  # (a fold goes to `send`)
                out.append(exc.for_hosts)
            raise

    up.transport.send = send  # type: ignore[method-assign]
    up.transport.send_many = send_many  # type: ignore[method-assign]
    return out


def restore(world: World, channel: Channel, overwrites: list[Overwrite]) -> None:
    """A moderator puts a channel's permissions back as they were (CHANNEL_UPDATE)."""
    channel.overwrites = [Overwrite(o.id, o.type, o.allow, o.deny) for o in overwrites]
    world.fake.channel_changed(channel)


async def play_round_one(world: World, up: Umpire, match: LiveMatch,
                         check: tuple[bool, bool] = (True, True)) -> None:
    """Both players make their first decision, typed in their tables."""
    for seat, user in enumerate((world.alice, world.bob)):
        prompt = next(p for p in match.prompts if p.seat == seat)
        await world.fake.send_user_message(user, channel_of(world, match, f"seat{seat}"),
                                           prompt.choices[0], check_permissions=check[seat])
        await world.fake.wait_for(lambda p=prompt: not match.prompt_pending(p.key), 10)
